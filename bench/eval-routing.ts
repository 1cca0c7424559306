/**
 * `skill-central eval --routing`, timed: the real CLI over the built-in skills (their own trigger
 * sets), over generated corpora of 1,000 and 1,200 skill files and over 1,200 Agent Skills
 * folders (ensureFolders), each skill given a seeded trigger set of
 * 20 queries (14 should-trigger, drawn from its own words; 6 should-not, from other skills'), so
 * every run ranks the same queries. Reports the CLI's wall and CPU time (load included) and the
 * ranking alone, in process, over one index, in CPU time (the wall clock of a shared machine
 * measures its other jobs).
 *
 *   bun bench/eval-routing.ts [--sizes 1000,1200] [--folders 1200] [--queries 20] [--runs 3] [--seed 42]
 *
 * The corpora live in bench/.corpus-eval (their own, as trigger sets are written into them).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadSkills } from "../src/load/load-skills.ts";
import { routeTriggerSets, type RoutingQuery } from "../src/registry/routing.ts";
import { buildSearchIndex } from "../src/registry/search.ts";
import type { Candidate } from "../src/registry/registry.ts";
import { evalPathsOf } from "../src/storage/eval-files.ts";
import { mulberry32 } from "./corpus.ts";
import { ensureCorpus } from "./lib/corpora.ts";
import { summarize } from "./lib/stats.ts";

const REPO_ROOT = join(import.meta.dir, "..");
const CLI = join(REPO_ROOT, "src", "cli.ts");
const USAGE =
  "usage: bun bench/eval-routing.ts [--sizes 1000,1200] [--folders 1200] [--queries 20] [--runs 3] [--seed 42]";

interface Options {
  sizes: number[];
  folders: number;
  queries: number;
  runs: number;
  seed: number;
}

function parse(argv: string[]): Options {
  const o: Options = { sizes: [1000, 1200], folders: 1200, queries: 20, runs: 3, seed: 42 };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const int = (v: string | undefined) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive whole number\n${USAGE}`);
      return n;
    };
    if (flag === "--sizes") o.sizes = (argv[i + 1] ?? "").split(",").map(int);
    else if (flag === "--folders") o.folders = int(argv[i + 1]);
    else if (flag === "--queries") o.queries = int(argv[i + 1]);
    else if (flag === "--runs") o.runs = int(argv[i + 1]);
    else if (flag === "--seed") o.seed = int(argv[i + 1]);
    else throw new Error(`unknown flag ${flag}\n${USAGE}`);
  }
  return o;
}

const words = (c: Candidate) =>
  `${c.skill.id} ${c.skill.description} ${c.skill.tags.join(" ")}`
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2);

/** A seeded trigger set per skill: about 70% should-trigger queries from its own words, the rest from another skill's. */
function triggerSets(served: readonly Candidate[], perSkill: number, seed: number): Map<string, RoutingQuery[]> {
  const rand = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const vocab = served.map(words);
  const phrase = (own: string[]) => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(own)).join(" ");
  const sets = new Map<string, RoutingQuery[]>();
  served.forEach((c, i) => {
    const positives = Math.round(perSkill * 0.7);
    const items: RoutingQuery[] = [];
    for (let q = 0; q < perSkill; q++) {
      const own = q < positives || served.length === 1;
      const from = own ? vocab[i]! : vocab[(i + 1 + Math.floor(rand() * (served.length - 1))) % served.length]!;
      items.push({ query: phrase(from.length > 0 ? from : ["skill"]), should_trigger: own });
    }
    sets.set(c.skill.id, items);
  });
  return sets;
}

async function timeCli(
  cwd: string,
  home: string,
  runs: number,
): Promise<{ ms: number[]; cpu: number[]; skills: number; queries: number }> {
  const ms: number[] = [];
  const cpu: number[] = [];
  let skills = 0;
  let queries = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const proc = Bun.spawn([process.execPath, CLI, "eval", "--routing", "--json"], {
      cwd,
      env: { HOME: home, PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    ms.push(performance.now() - t0);
    const usage = proc.resourceUsage();
    if (usage) cpu.push(Number(usage.cpuTime.user + usage.cpuTime.system) / 1000);
    if (code !== 0) throw new Error(`eval exited ${code} in ${cwd}:\n${err.slice(0, 2000)}`);
    const report = JSON.parse(out) as { skills: { queries: unknown[] }[] };
    skills = report.skills.length;
    queries = report.skills.reduce((n, s) => n + s.queries.length, 0);
  }
  return { ms, cpu, skills, queries };
}

/**
 * N Agent Skills folders: the public skills in test/fixtures/public-skills, copied round-robin and
 * renamed so each `name:` matches its folder. Only SKILL.md is copied: routing reads a folder's
 * frontmatter and headings, and its other files are listed only when first needed.
 */
function ensureFolders(root: string, n: number): string {
  const dir = join(root, `folders-${n}`);
  if (existsSync(join(dir, ".complete"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const source = join(REPO_ROOT, "test", "fixtures", "public-skills");
  const bases = readdirSync(source).filter((name) => existsSync(join(source, name, "SKILL.md")));
  mkdirSync(join(dir, "skills"), { recursive: true });
  writeFileSync(
    join(dir, "skill-central.yaml"),
    "builtin: false\nlayers:\n  - { name: skills, path: ./skills, priority: 10 }\n",
  );
  for (let i = 0; i < n; i++) {
    const base = bases[i % bases.length]!;
    const name = `${base}-${Math.floor(i / bases.length) + 1}`;
    mkdirSync(join(dir, "skills", name));
    const text = readFileSync(join(source, base, "SKILL.md"), "utf8").replace(/^name:.*$/m, `name: ${name}`);
    writeFileSync(join(dir, "skills", name, "SKILL.md"), text);
  }
  writeFileSync(join(dir, ".complete"), "");
  return dir;
}

async function timeCorpus(label: string, dir: string, home: string, o: Options): Promise<void> {
  const { registry } = await loadSkills({ cwd: dir, home, builtin: false });
  const served = registry.served();
  const sets = triggerSets(served, o.queries, o.seed);
  for (const c of served) {
    const path = evalPathsOf(c.path).triggers;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(sets.get(c.skill.id)));
  }
  const ranking: number[] = [];
  for (let r = 0; r < o.runs; r++) {
    // CPU time, not wall: on a shared machine the wall clock measures the neighbours.
    const c0 = process.cpuUsage();
    routeTriggerSets(buildSearchIndex(served), sets, (c) => c.skill.modelInvocable !== false);
    const used = process.cpuUsage(c0);
    ranking.push((used.user + used.system) / 1000);
  }
  const cli = await timeCli(dir, home, o.runs);
  const rank = summarize(ranking).median;
  console.log(
    `| ${label}, ${served.length} skills | ${cli.skills} | ${cli.queries} | ${fmt(summarize(cli.ms).median)} | ${fmt(summarize(cli.cpu).median)} | ${fmt(rank)} | ${(rank / (served.length * o.queries)).toFixed(3)} ms |`,
  );
}

const fmt = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const home = mkdtempSync(join(tmpdir(), "skill-central-bench-eval-"));
  const empty = mkdtempSync(join(tmpdir(), "skill-central-bench-eval-project-"));
  try {
    console.log(`eval --routing benchmark (seed ${o.seed}; ${o.runs} CLI runs each; Bun ${Bun.version})`);
    console.log(
      "| catalog | skills with a set | queries | CLI wall (median) | CLI CPU (median) | ranking alone, CPU (median) | per query |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    const builtins = await timeCli(empty, home, o.runs);
    console.log(
      `| built-in skills | ${builtins.skills} | ${builtins.queries} | ${fmt(summarize(builtins.ms).median)} | ${fmt(summarize(builtins.cpu).median)} | - | - |`,
    );
    for (const size of o.sizes) {
      const corpus = await ensureCorpus(join(REPO_ROOT, "bench", ".corpus-eval"), size, o.seed);
      await timeCorpus("generated YAML", corpus.dir, home, o);
    }
    if (o.folders > 0)
      await timeCorpus(
        "Agent Skills folders",
        ensureFolders(join(REPO_ROOT, "bench", ".corpus-eval"), o.folders),
        home,
        o,
      );
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  }
}

await main();
