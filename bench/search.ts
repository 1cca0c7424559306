/**
 * The catalog's search, measured: how long the index of one registry snapshot takes to build,
 * and how long a query takes, over the benchmark corpora (bench/.corpus, generated once per size).
 *
 *   bun bench/search.ts [--sizes 1000,10000] [--queries 500] [--builds 5] [--seed 42]
 *
 * In-process, no MCP: this is the work `find_skills` and `skill-central find` add on top of the
 * registry. Queries are drawn (seeded) from the corpus's own names, descriptions and tags: one,
 * two and three words, a typo, a prefix; plus the query-less listing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSkills } from "../src/load/load-skills.ts";
import { buildSearchIndex, searchSkills } from "../src/registry/search.ts";
import { mulberry32 } from "./corpus.ts";
import { ensureCorpus } from "./lib/corpora.ts";
import { summarize } from "./lib/stats.ts";

const REPO_ROOT = join(import.meta.dir, "..");

interface Options {
  sizes: number[];
  queries: number;
  builds: number;
  seed: number;
}

function parse(argv: string[]): Options {
  const o: Options = { sizes: [1000, 10000], queries: 500, builds: 5, seed: 42 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    const int = (v: string | undefined) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1)
        throw new Error(`${flag} needs a positive whole number (got ${v ?? "nothing"})`);
      return n;
    };
    if (flag === "--sizes") o.sizes = (value ?? "").split(",").map(int);
    else if (flag === "--queries") o.queries = int(value);
    else if (flag === "--builds") o.builds = int(value);
    else if (flag === "--seed") o.seed = int(value);
    else
      throw new Error(
        `unknown flag ${flag}; usage: bun bench/search.ts [--sizes 1000,10000] [--queries 500] [--builds 5] [--seed 42]`,
      );
    i++;
  }
  return o;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2);
}

/** Seeded queries of the kinds people and models send. */
function queriesFor(texts: string[][], count: number, seed: number): string[] {
  const rand = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const out: string[] = [];
  while (out.length < count) {
    const source = pick(texts);
    if (source.length === 0) continue;
    const kind = out.length % 5;
    if (kind === 0) out.push(pick(source));
    else if (kind === 1) out.push(`${pick(source)} ${pick(source)}`);
    else if (kind === 2) out.push(`${pick(source)} ${pick(source)} ${pick(pick(texts).length ? pick(texts) : source)}`);
    else if (kind === 3) {
      const w = pick(source);
      out.push(w.length > 4 ? `${w.slice(0, 2)}${w[3]}${w[2]}${w.slice(4)}` : w); // a swapped pair: a typo
    } else out.push(pick(source).slice(0, 4)); // a prefix
  }
  return out;
}

const ms = (n: number) => `${n.toFixed(n < 1 ? 3 : 1)} ms`;

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const home = mkdtempSync(join(tmpdir(), "skill-central-bench-search-"));
  try {
    console.log(
      `search benchmark (seed ${o.seed}; ${o.builds} builds, ${o.queries} queries per size; Bun ${Bun.version})`,
    );
    console.log(
      "| skills | first index build | later builds (median) | query median | query p95 | query max | listing (no query) | terms |",
    );
    console.log("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const size of o.sizes) {
      const corpus = await ensureCorpus(join(REPO_ROOT, "bench", ".corpus"), size, o.seed);
      const { registry } = await loadSkills({ cwd: corpus.dir, home, builtin: false });
      const served = registry.served();
      const builds: number[] = [];
      // The first build of a process is what a server's first find_skills pays (nothing cached yet).
      const cold = performance.now();
      let index = buildSearchIndex(served);
      const firstBuild = performance.now() - cold;
      for (let i = 0; i < o.builds; i++) {
        Bun.gc(true);
        const t0 = performance.now();
        index = buildSearchIndex(served);
        builds.push(performance.now() - t0);
      }
      const texts = served.map((c) => [...words(c.skill.id), ...words(c.skill.description), ...c.skill.tags]);
      const queries = queriesFor(texts, o.queries, o.seed);
      const times: number[] = [];
      let hits = 0;
      for (const query of queries) {
        const t0 = performance.now();
        hits += searchSkills(index, { query, limit: 10 }).hits.length;
        times.push(performance.now() - t0);
      }
      const listing: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        searchSkills(index, { limit: 10, filter: (c) => c.skill.modelInvocable !== false });
        listing.push(performance.now() - t0);
      }
      const q = summarize(times);
      const p95 = [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.95)] ?? Number.NaN;
      console.log(
        `| ${served.length} | ${ms(firstBuild)} | ${ms(summarize(builds).median)} | ${ms(q.median)} | ${ms(p95)} | ${ms(q.max)} | ${ms(summarize(listing).median)} | ${index.vocabulary.length} |`,
      );
      if (hits === 0)
        throw new Error(`no query found anything at ${size} skills: the benchmark is not measuring search`);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
