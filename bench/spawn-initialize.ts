/**
 * Spawn→initialize time of a skill-central server, with the built-in skills, through the SDK
 * Client over stdio: what an IDE waits for before its first request.
 *
 *   bun bench/spawn-initialize.ts [runs=20] [-- <command> [args...]]
 *   bun bench/spawn-initialize.ts 20 -- dist/skill-central mcp
 *   bun bench/spawn-initialize.ts 20 -- bun src/cli.ts mcp
 *
 * Without a command it builds the host binary (script/build.ts) into a temporary folder first.
 * Each run starts the server in an empty folder with an empty HOME, so only the built-in skills
 * load. "initialize" is the time `client.connect()` takes (spawn, runtime start, module
 * evaluation, the handshake); "prompts/list" is the first list answer after that, which waits
 * for the skills to finish loading.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildForTests } from "../script/build.ts";
import { median } from "./lib/stats.ts";

interface Sample {
  initializeMs: number;
  firstListMs: number;
  prompts: number;
}

async function measure(command: string, args: string[], cwd: string, home: string): Promise<Sample> {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: { HOME: home, PATH: process.env.PATH ?? "" },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench-spawn-initialize", version: "0.0.0" });
  const started = performance.now();
  await client.connect(transport);
  const initialized = performance.now();
  const { prompts } = await client.listPrompts();
  const listed = performance.now();
  await client.close();
  return { initializeMs: initialized - started, firstListMs: listed - initialized, prompts: prompts.length };
}

function summary(label: string, values: number[]): string {
  const f = (v: number) => v.toFixed(1);
  return `${label}: median ${f(median(values))} ms (min ${f(Math.min(...values))}, max ${f(Math.max(...values))})`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sep = argv.indexOf("--");
  const runs = Number((sep === -1 ? argv : argv.slice(0, sep))[0] ?? 20);
  let [command, ...args] = sep === -1 ? [] : argv.slice(sep + 1);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error("usage: bun bench/spawn-initialize.ts [runs] [-- <command> [args...]]");
  if (!command) {
    command = await buildForTests();
    args = ["mcp"];
  }
  // The server runs in an empty folder: paths given relative to here must be made absolute.
  const absolute = (p: string) => (existsSync(p) ? resolve(p) : p);
  command = command.includes("/") ? absolute(command) : command;
  args = args.map(absolute);

  const root = mkdtempSync(join(tmpdir(), "skill-central-bench-"));
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(home);
  try {
    await measure(command, args, cwd, home); // warm the page cache; not counted
    const samples: Sample[] = [];
    for (let i = 0; i < runs; i++) samples.push(await measure(command, args, cwd, home));
    process.stdout.write(
      `${[command, ...args].join(" ")}: ${runs} runs, ${samples[0]!.prompts} prompts\n` +
        `  ${summary(
          "spawn→initialize",
          samples.map((s) => s.initializeMs),
        )}\n` +
        `  ${summary(
          "initialize→prompts/list",
          samples.map((s) => s.firstListMs),
        )}\n` +
        `  samples ${samples.map((s) => s.initializeMs.toFixed(1)).join(" ")}\n`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
