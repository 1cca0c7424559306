#!/usr/bin/env bun
/**
 * The skills extension on a corpus: how long `skills/list` takes the first time on a snapshot
 * (every YAML prompt's SKILL.md synthesised and hashed) and after, `skills/get` and
 * `resources/read` of a SKILL.md; and the same listing through the SDK's own `SkillsExtension`
 * over a custom source holding the very same entries, which is what choosing it would have cost.
 * Not a test: figures for reports. `bun bench/skills-extension.ts --help`.
 *
 * Both servers run in this process behind an in-memory transport, with the SDK's client, so those
 * figures compare the servers and leave out serialising, pipes and processes; the same requests
 * over stdio to `skill-central mcp` give the figures a host sees.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { Skill as SkillEntry } from "@modelcontextprotocol/core/ext/skills";
import { InMemoryTransport, McpServer, type Server, type StandardSchemaV1 } from "@modelcontextprotocol/server";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSkills } from "../src/load/load-skills.ts";
import { LiveRegistry } from "../src/mcp/registry-source.ts";
import { createServer } from "../src/mcp/server.ts";
import { ensureCorpus } from "./lib/corpora.ts";
import { REPO_ROOT } from "./lib/build.ts";
import { summarize } from "./lib/stats.ts";

const USAGE = `usage: bun bench/skills-extension.ts [--size N] [--rounds R] [--samples S]

  --size N      corpus size in skill files (default 1000)
  --rounds R    fresh loads, each timed on its first skills/list (default 5)
  --samples S   requests per warm figure (default 100)
`;

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} takes a positive integer`);
  return value;
}

if (process.argv.includes("--help")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const size = option("size", 1000);
const rounds = option("rounds", 5);
const samples = option("samples", 100);

const ANY: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "bench", validate: (value) => ({ value }) },
};
type ListResult = { skills: SkillEntry[]; nextCursor?: string };

async function connected(server: Server | McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(clientSide);
  return client;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

async function repeat(times: number, work: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) out.push((await timed(() => work(i))).ms);
  return out;
}

const fmt = (values: number[]) => {
  const s = summarize(values);
  return `median ${s.median.toFixed(2)} ms (p25 ${s.p25.toFixed(2)}, p75 ${s.p75.toFixed(2)}, n=${s.n})`;
};

const corpus = await ensureCorpus(join(REPO_ROOT, "bench", ".corpus"), size, 42);
const home = mkdtempSync(join(tmpdir(), "skill-central-bench-home-"));
try {
  const list = (client: Client) => client.request({ method: "skills/list", params: {} }, ANY) as Promise<ListResult>;

  // The first skills/list of a snapshot publishes every skill: a fresh load each round.
  const firsts: number[] = [];
  let entries: SkillEntry[] = [];
  let client: Client | undefined;
  for (let round = 0; round < rounds; round++) {
    const loaded = await loadSkills({ cwd: corpus.dir, home, builtin: false });
    const live = new LiveRegistry();
    live.swap(loaded.registry);
    await client?.close();
    client = await connected(createServer(live, { live: false }));
    const first = await timed(() => list(client!));
    firsts.push(first.ms);
    entries = first.value.skills;
  }
  const ours = client!;
  const warm = await repeat(samples, () => list(ours));
  const uris = entries.map((e) => e.uri);
  const gets = await repeat(samples, (i) =>
    ours.request({ method: "skills/get", params: { uri: uris[(i * 7919) % uris.length]! } }, ANY),
  );
  const reads = await repeat(samples, (i) => ours.readResource({ uri: uris[(i * 104729) % uris.length]! }));
  const bytes = Buffer.byteLength(JSON.stringify({ skills: entries }));

  // The SDK's extension over a source that returns the same entries: it re-validates each one per request.
  const sdkList = async (given: SkillEntry[]) => {
    const extension = new SkillsExtension({
      source: {
        list: async () => ({ skills: given }),
        get: async (uri) => given.find((e) => e.uri === uri),
        read: async () => undefined,
      },
      onWarning: () => {},
    });
    const mcp = new McpServer({ name: "sdk", version: "0" });
    extension.attach(mcp);
    return connected(mcp);
  };
  const sdk = await sdkList(entries);
  const sdkWarm = await repeat(samples, () => list(sdk));
  const sdkCount = (await list(sdk)).skills.length;
  // A description of 1,068 characters, as a widely used public skill has.
  const long = entries.map((e, i) =>
    i === 0 ? { ...e, frontmatter: { ...e.frontmatter, description: "x".repeat(1068) } } : e,
  );
  const sdkLong = await sdkList(long);
  const keptLong = (await list(sdkLong)).skills.length;
  await Promise.all([ours.close(), sdk.close(), sdkLong.close()]);

  // Over stdio, as a host sees it: the source entry, a cold HOME (no start-up index yet).
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO_ROOT, "src", "cli.ts"), "mcp", "--no-watch", "--no-builtin"],
    cwd: corpus.dir,
    env: { HOME: home, PATH: process.env.PATH ?? "" },
    stderr: "ignore",
  });
  const stdio = new Client({ name: "bench", version: "0" });
  await stdio.connect(transport);
  // prompts/list first: it waits for the first load, so the skills/list after it times publishing alone.
  await stdio.listPrompts();
  const stdioFirst = (await timed(() => list(stdio))).ms;
  const stdioWarm = await repeat(samples, () => list(stdio));
  const stdioReads = await repeat(samples, (i) => stdio.readResource({ uri: uris[(i * 104729) % uris.length]! }));
  await stdio.close();

  const lines = [
    `corpus: ${corpus.dir} (${size} files; ${entries.length} published skills, skills/list result ${(bytes / 1024).toFixed(0)} KiB)`,
    `skill-central, first skills/list of a snapshot: ${fmt(firsts)}`,
    `skill-central, skills/list after:              ${fmt(warm)}`,
    `skill-central, skills/get:                     ${fmt(gets)}`,
    `skill-central, resources/read of a SKILL.md:   ${fmt(reads)}`,
    `over stdio, first skills/list (loaded, none published yet): ${stdioFirst.toFixed(2)} ms`,
    `over stdio, skills/list after:                 ${fmt(stdioWarm)}`,
    `over stdio, resources/read of a SKILL.md:      ${fmt(stdioReads)}`,
    `SDK SkillsExtension (same entries), skills/list: ${fmt(sdkWarm)}; returned ${sdkCount} of ${entries.length}`,
    `SDK SkillsExtension with one 1,068-character description: returned ${keptLong} of ${long.length}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
