#!/usr/bin/env bun
/**
 * Agent Skills folders: our server against skilljack-mcp (the peer, bench/peers/) on folder
 * corpora, in one interleaved run. `bun run bench --folders [--sizes 120,1200] [--runs 7]`.
 * Per session: spawn → complete prompts/list (every page), peak RSS 1 s after that list, then
 * sequential prompts/get for a second. Ours runs cold (fresh HOME) and warm (the start-up index
 * a warm-up session wrote); the peer keeps nothing, so it has one mode. `--baseline DIR` adds a
 * checkout of ours (e.g. the commit before a change) as a third target, for before/after;
 * `--binary PATH|build` and `--baseline-binary PATH` add compiled binaries (what users run).
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { peakRssMb } from "./lib/session.ts";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { buildOurs, REPO_ROOT } from "./lib/build.ts";
import { ensureCorpus } from "./lib/corpora.ts";
import { ensureFolderCorpus, publicSkills, type FolderCorpus } from "./lib/folder-corpus.ts";
import { Homes } from "./lib/homes.ts";
import { median } from "./lib/stats.ts";

const PEER_DIR = join(REPO_ROOT, "bench", "peers", ".skilljack-mcp");
const CORPUS_ROOT = join(REPO_ROOT, "bench", ".corpus");
const RSS_AFTER_MS = 1000;
const GET_SECONDS = 1;

interface Variant {
  label: string;
  command: string;
  args: (corpus: FolderCorpus) => string[];
  env: Record<string, string>;
  /** null: keeps nothing between runs. */
  mode: "cold" | "warm" | null;
}

interface Sample {
  firstList: number;
  rss: number;
  getsPerSecond: number;
  prompts: number;
}

const log = (line: string) => process.stderr.write(`[bench:folders] ${line}\n`);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

async function session(variant: Variant, corpus: FolderCorpus, home: string): Promise<Sample> {
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: variant.command,
    args: variant.args(corpus),
    cwd: corpus.dir,
    env: { HOME: home, PATH: process.env.PATH ?? "", NO_COLOR: "1", ...variant.env },
    stderr: "ignore",
    // The peer answers prompts/list in one page: 11 MB at 12,000 skills, over the SDK client's 10 MiB default.
    maxBufferSize: 64 * 1024 * 1024,
  });
  const client = new Client({ name: "bench-folders", version: "1" });
  try {
    await client.connect(transport);
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
      names.push(...page.prompts.map((p) => p.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const firstList = performance.now() - started;
    const expected = corpus.prompts ?? corpus.n;
    if (names.length < expected)
      throw new Error(`${variant.label}: ${names.length} prompts listed, ${expected} expected`);
    await sleep(RSS_AFTER_MS - (performance.now() - started - firstList));
    const rss = peakRssMb(transport.pid);
    const skills = names.filter((n) => /-\d+$/.test(n));
    // The YAML corpora's prompts take arguments: their first list and RSS are what --yaml compares.
    if (corpus.prompts !== undefined || skills.length === 0)
      return { firstList, rss, getsPerSecond: Number.NaN, prompts: names.length };
    let gets = 0;
    const from = performance.now();
    while (performance.now() - from < GET_SECONDS * 1000) {
      const got = await client.getPrompt({ name: skills[gets % skills.length]! });
      if (got.messages.length === 0) throw new Error(`${variant.label}: empty prompts/get`);
      gets++;
    }
    return { firstList, rss, getsPerSecond: gets / ((performance.now() - from) / 1000), prompts: names.length };
  } finally {
    await client.close();
  }
}

interface Options {
  sizes: number[];
  runs: number;
  baseline?: string;
  skillsFrom?: string;
  binary?: string;
  baselineBinary?: string;
  /** The generated YAML corpora (bench/corpus.ts) instead of folders, without the peer: the no-regression check. */
  yaml: boolean;
}

function variants(options: Options): Variant[] {
  const modes = ["cold", "warm"] as const;
  const ours = (label: string, root: string): Variant[] =>
    modes.map((mode) => ({
      label: `${label} ${mode}`,
      command: process.execPath,
      args: () => [join(root, "src", "cli.ts"), "mcp"],
      env: { SKILL_CENTRAL_CACHE: "on" },
      mode,
    }));
  // A compiled binary always uses its start-up index.
  const binary = (label: string, path: string): Variant[] =>
    modes.map((mode) => ({ label: `${label} ${mode}`, command: resolve(path), args: () => ["mcp"], env: {}, mode }));
  const peer: Variant = {
    label: "skilljack",
    command: "node",
    args: (c) => [join(PEER_DIR, "dist", "index.js"), c.skills],
    env: {},
    mode: null,
  };
  return [
    ...ours("ours", REPO_ROOT),
    ...(options.baseline ? ours("before", resolve(options.baseline)) : []),
    ...(options.binary ? binary("ours binary", options.binary) : []),
    ...(options.baselineBinary ? binary("before binary", options.baselineBinary) : []),
    ...(options.yaml ? [] : [peer]),
  ];
}

function parse(argv: string[]): Options {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sizes = (get("--sizes") ?? "120,1200,12000").split(",").map(Number);
  const baseline = get("--baseline");
  const skillsFrom = get("--skills-from");
  const binary = get("--binary");
  const baselineBinary = get("--baseline-binary");
  return {
    sizes,
    runs: Number(get("--runs") ?? 7),
    yaml: argv.includes("--yaml"),
    ...(baseline && { baseline }),
    ...(skillsFrom && { skillsFrom }),
    ...(binary && { binary }),
    ...(baselineBinary && { baselineBinary }),
  };
}

function ensurePeer(): void {
  if (existsSync(join(PEER_DIR, "dist", "index.js"))) return;
  log("building skilljack-mcp v0.5.1 (bench/peers/build-skilljack.sh)…");
  const built = Bun.spawnSync([join(REPO_ROOT, "bench", "peers", "build-skilljack.sh")], { stderr: "inherit" });
  if (built.exitCode !== 0) throw new Error("cannot build the peer: run bench/peers/build-skilljack.sh [SOURCE]");
}

const fmt = (v: number, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : "—");

function report(corpora: FolderCorpus[], all: Variant[], samples: Map<string, Sample[]>, meta: string): string {
  let md = `# ${meta.includes("--yaml") ? "YAML corpora: ours before and after" : "Agent Skills folders: ours against skilljack-mcp v0.5.1"}\n\n${meta}\n`;
  for (const c of corpora) {
    md += `\n## ${c.n} ${c.prompts === undefined ? "folders" : "skills"} (${c.files} files${Number.isFinite(c.bytes) ? `, ${(c.bytes / 1048576).toFixed(0)} MB` : ""})\n\n`;
    md +=
      "| target | spawn → complete prompts/list (median ms) | ÷ peer | peak RSS 1 s after (MB) | ÷ peer | prompts/get per s |\n|---|---|---|---|---|---|\n";
    const med = (label: string, key: keyof Sample) => median((samples.get(`${c.n}/${label}`) ?? []).map((s) => s[key]));
    const peerList = med("skilljack", "firstList");
    const peerRss = med("skilljack", "rss");
    for (const v of all) {
      const list = med(v.label, "firstList");
      const rss = med(v.label, "rss");
      md += `| ${v.label} | ${fmt(list)} | ${fmt(list / peerList, 2)} | ${fmt(rss)} | ${fmt(rss / peerRss, 2)} | ${fmt(med(v.label, "getsPerSecond"))} |\n`;
    }
  }
  return md;
}

function folderCorpora(options: Options): FolderCorpus[] {
  ensurePeer();
  const source = publicSkills(CORPUS_ROOT, options.skillsFrom);
  return options.sizes.map((n) => ensureFolderCorpus(CORPUS_ROOT, n, source));
}

async function yamlCorpora(sizes: number[]): Promise<FolderCorpus[]> {
  const out: FolderCorpus[] = [];
  for (const n of sizes) {
    const { dir, info } = await ensureCorpus(CORPUS_ROOT, n, 42);
    const files = info.layers.reduce((sum, l) => sum + l.files, 0);
    out.push({ n, dir, skills: dir, files, bytes: Number.NaN, prompts: info.effective.prompts });
  }
  return out;
}

export async function benchFolders(argv: string[]): Promise<number> {
  const options = parse(argv);
  if (options.binary === "build") {
    log("compiling skill-central…");
    options.binary = (await buildOurs()).path;
  }
  mkdirSync(CORPUS_ROOT, { recursive: true });
  const corpora = options.yaml ? await yamlCorpora(options.sizes) : folderCorpora(options);
  for (const c of corpora) log(`corpus ${c.n}: ${c.files} files, ${(c.bytes / 1048576).toFixed(0)} MB`);
  // The start-up index leaves out files changed in the last 2 s (racy stamps).
  await sleep(2100);
  const all = variants(options);
  const homes = new Homes();
  const samples = new Map<string, Sample[]>();
  const loadBefore = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  try {
    for (let round = 0; round <= options.runs; round++) {
      for (const corpus of corpora) {
        const k = round % all.length;
        for (const v of [...all.slice(k), ...all.slice(0, k)]) {
          const home = v.mode === "warm" ? homes.persistent(`${v.label}-${corpus.n}`) : homes.fresh("cold");
          try {
            const s = await session(v, corpus, home);
            if (round > 0) samples.set(`${corpus.n}/${v.label}`, [...(samples.get(`${corpus.n}/${v.label}`) ?? []), s]);
          } finally {
            if (v.mode !== "warm") homes.release(home);
          }
        }
      }
      log(round === 0 ? "warm-up done" : `round ${round}/${options.runs} done`);
    }
  } finally {
    homes.removeAll();
  }
  const loadAfter = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  const meta = `${new Date().toISOString().slice(0, 10)}, \`bun bench/run.ts --folders ${argv.join(" ")}\`; ${options.runs} measured rounds, interleaved (round 0 is a warm-up); load average ${loadBefore} before, ${loadAfter} after; Bun ${Bun.version}, Node ${process.versions.node === undefined ? "?" : Bun.spawnSync(["node", "--version"]).stdout.toString().trim()} for the peer.`;
  const md = report(corpora, all, samples, meta);
  process.stdout.write(md);
  const dir = join(REPO_ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const kind = options.yaml ? "yaml-before-after" : "folders";
  writeFileSync(join(dir, `${kind}-${new Date().toISOString().slice(0, 10)}-${options.sizes.join("-")}.md`), md);
  return 0;
}

if (import.meta.main) process.exit(await benchFolders(process.argv.slice(2)));
