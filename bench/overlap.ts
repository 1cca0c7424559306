/**
 * The search for competing skills (`skill-central overlap`, validate's competing-skills), measured
 * on generated catalogs of look-alike skills, its worst case: every pair of a family competes,
 * so the pairs grow with the square of the catalog while what is kept and the work stay linear
 * (src/registry/overlap-search.ts). In-process, no CLI.
 *
 *   bun bench/overlap.ts [--sizes 1000,10000] [--runs 3]
 */
import { COMPETING_THRESHOLD, findOverlap } from "../src/registry/overlap.ts";
import { lookalikeSkills } from "../test/helpers/lookalike-skills.ts";
import { summarize } from "./lib/stats.ts";

function parse(argv: string[]): { sizes: number[]; runs: number } {
  const o = { sizes: [1000, 10_000], runs: 3 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const ints = (value ?? "").split(",").map(Number);
    if (ints.some((n) => !Number.isInteger(n) || n < 2))
      throw new Error(`${flag} needs whole numbers of at least 2 (got ${value ?? "nothing"})`);
    if (flag === "--sizes") o.sizes = ints;
    else if (flag === "--runs") o.runs = ints[0]!;
    else throw new Error(`unknown flag ${flag}; usage: bun bench/overlap.ts [--sizes 1000,10000] [--runs 3]`);
  }
  return o;
}

const o = parse(process.argv.slice(2));
console.log(
  `overlap benchmark: look-alike skills, threshold ${COMPETING_THRESHOLD}, ${o.runs} runs (Bun ${Bun.version})`,
);
console.log("| skills | search (median) | pairs reaching 0.3 | listed | exact | RSS after |");
console.log("|---:|---:|---:|---:|---:|---:|");
for (const size of o.sizes) {
  const skills = lookalikeSkills(size);
  const times: number[] = [];
  let found = findOverlap(skills, COMPETING_THRESHOLD);
  for (let i = 0; i < o.runs; i++) {
    Bun.gc(true);
    const t0 = performance.now();
    found = findOverlap(skills, COMPETING_THRESHOLD);
    times.push(performance.now() - t0);
  }
  const rss = process.memoryUsage().rss / 2 ** 20;
  console.log(
    `| ${size} | ${summarize(times).median.toFixed(0)} ms | ${found.exact ? "" : "≥ "}${found.total} | ${found.pairs.length} | ${found.exact ? "yes" : "no"} | ${rss.toFixed(0)} MB |`,
  );
}
