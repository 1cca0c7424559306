#!/usr/bin/env bun
/**
 * Memory under slow or greedy clients: N clients each ask for a 4 MiB file of a skill folder
 * (`resources/read`) and never read the answer. Over HTTP, one raw connection per client, each in
 * its own 2025-11-25 session; over stdio, N requests on one pipe whose stdout is not read. Prints
 * the server's RSS before, at its peak and some seconds later, and `/healthz` latency meanwhile;
 * then the clients read at last, and it counts what each got. Not a test: figures for docs and
 * reports (test/e2e/slow-clients-suite.ts asserts them loosely). `bun bench/slow-clients.ts --help`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFixture } from "../test/helpers/fixture.ts";
import { startHttpServer } from "../test/helpers/http-server.ts";
import { SOURCE_TARGET, type ServerTarget } from "../test/helpers/server.ts";
import {
  BIG_FILE_URI,
  bigFileProject,
  HealthProbe,
  openSession,
  openSessions,
  readRequest,
  RssWatch,
  rssMb,
  StalledConnection,
  UnreadPipe,
  type StalledAnswer,
} from "../test/helpers/slow-clients.ts";
import { buildOurs } from "./lib/build.ts";

const USAGE = `usage: bun bench/slow-clients.ts [options]

  --clients N      stalled clients (default 300)
  --file-mb N      size of the file they read, in MiB (default 4)
  --hold S         seconds to wait after the burst before the "after" figure (default 8)
  --only http|stdio  one transport (default both)
  --shared         HTTP: all clients in one session (default: a session each)
  --binary PATH    run this compiled binary; --build compiles one; default: bun src/cli.ts
  --build
  --help           show this help
`;

interface Options {
  clients: number;
  fileMb: number;
  hold: number;
  only?: "http" | "stdio";
  shared: boolean;
  binary?: string;
  build: boolean;
}

function parse(argv: string[]): Options | null {
  const o: Options = { clients: 300, fileMb: 4, hold: 8, shared: false, build: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${arg} needs a positive number`);
      return v;
    };
    if (arg === "--help") return null;
    else if (arg === "--clients") o.clients = value();
    else if (arg === "--file-mb") o.fileMb = value();
    else if (arg === "--hold") o.hold = value();
    else if (arg === "--only") o.only = argv[++i] === "stdio" ? "stdio" : "http";
    else if (arg === "--shared") o.shared = true;
    else if (arg === "--binary") o.binary = argv[++i];
    else if (arg === "--build") o.build = true;
    else throw new Error(`unknown option ${arg}`);
  }
  return o;
}

const log = (line: string) => process.stderr.write(`[slow-clients] ${line}\n`);
const mb = (n: number) => `${n.toFixed(0)} MB`;

function tally(answers: (StalledAnswer | undefined)[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const key =
      a === undefined
        ? "no answer"
        : `${a.status}${a.complete ? "" : " (cut)"}${a.headers["retry-after"] ? ` Retry-After: ${a.headers["retry-after"]}` : ""}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n} × ${k}`).join(", ");
}

async function httpRun(target: ServerTarget, o: Options): Promise<void> {
  const fixture = makeFixture(bigFileProject(o.fileMb));
  const server = await startHttpServer({
    target,
    cwd: fixture.cwd,
    home: fixture.home,
    args: ["--no-watch", "--max-sessions", String(o.clients + 10)],
  });
  try {
    while ((await fetch(`${server.base}/readyz`)).status !== 200) await Bun.sleep(20);
    const sessions = o.shared
      ? Array(o.clients).fill(await openSession(server.url))
      : await openSessions(server.url, o.clients);
    Bun.gc(true);
    await Bun.sleep(500);
    const before = rssMb(server.proc.pid);
    const rss = new RssWatch(server.proc.pid);
    const health = new HealthProbe(server.base);
    await health.answered(3);
    const started = performance.now();
    const stalled = await Promise.all(
      sessions.map((session: string, i) => StalledConnection.open(server.url, readRequest(server.url, session, i + 2))),
    );
    log(`HTTP: ${o.clients} requests sent in ${(performance.now() - started).toFixed(0)} ms; holding ${o.hold} s`);
    await Bun.sleep(o.hold * 1000);
    const after = rssMb(server.proc.pid);
    rss.stop();
    await health.stop();
    const sorted = [...health.latencies].sort((a, b) => a - b);
    const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? Number.NaN;
    const answers = await Promise.all(stalled.map((c) => c.resume()));
    for (const c of stalled) c.close();
    console.log(
      `HTTP, ${o.clients} stalled clients (${o.shared ? "one session" : "a session each"}), ${o.fileMb} MiB file, ${target.name}:`,
    );
    console.log(`  RSS before ${mb(before)}, peak ${mb(rss.peak)}, ${o.hold} s later ${mb(after)}`);
    console.log(
      `  /healthz: ${health.latencies.length} answers, max ${health.max.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ${health.failures} failed or timed out`,
    );
    const slowest = health.latencies
      .map((ms, i) => [ms, health.times[i]! - started] as const)
      .sort((a, b) => b[0] - a[0])
      .slice(0, 3);
    console.log(
      `  slowest /healthz: ${slowest.map(([ms, at]) => `${ms.toFixed(1)} ms at +${(at / 1000).toFixed(2)} s`).join(", ")}`,
    );
    console.log(`  once read: ${tally(answers)}`);
  } finally {
    await server.stop();
    fixture.cleanup();
  }
}

async function stdioRun(target: ServerTarget, o: Options): Promise<void> {
  const fixture = makeFixture(bigFileProject(o.fileMb));
  const scratch = mkdtempSync(join(tmpdir(), "slow-clients-"));
  const stdout = new UnreadPipe(scratch);
  const proc = Bun.spawn([target.command, ...target.args, "--no-watch"], {
    cwd: fixture.cwd,
    env: { HOME: fixture.home, PATH: process.env.PATH ?? "" },
    stdin: "pipe",
    stdout: stdout.writeFd,
    stderr: "ignore",
  });
  stdout.detach();
  try {
    await Bun.sleep(1000);
    const before = rssMb(proc.pid);
    const rss = new RssWatch(proc.pid);
    const frame = (message: unknown) => `${JSON.stringify(message)}\n`;
    let text = frame({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "slow-clients", version: "0" } },
    });
    text += frame({ jsonrpc: "2.0", method: "notifications/initialized" });
    for (let i = 1; i <= o.clients; i++)
      text += frame({ jsonrpc: "2.0", id: i, method: "resources/read", params: { uri: BIG_FILE_URI } });
    proc.stdin.write(text);
    void proc.stdin.flush();
    log(`stdio: ${o.clients} requests written; stdout unread for ${o.hold} s`);
    await Bun.sleep(o.hold * 1000);
    const after = rssMb(proc.pid);
    rss.stop();
    const answers = new Map<string, number>();
    const reading = stdout.drain((line) => {
      const message = JSON.parse(line) as { id?: number; result?: unknown; error?: { code: number } };
      const key = message.error ? `error ${message.error.code}` : "result";
      answers.set(key, (answers.get(key) ?? 0) + 1);
      if (message.id === o.clients) proc.stdin.end();
    });
    await reading;
    await proc.exited;
    console.log(`stdio, ${o.clients} requests with stdout unread, ${o.fileMb} MiB file, ${target.name}:`);
    console.log(`  RSS before ${mb(before)}, peak ${mb(rss.peak)}, ${o.hold} s later ${mb(after)}`);
    console.log(`  once read: ${[...answers].map(([k, n]) => `${n} × ${k}`).join(", ")} (initialize included)`);
  } finally {
    proc.kill();
    fixture.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const options = parse(process.argv.slice(2));
if (options === null) {
  console.log(USAGE);
} else {
  const command = options.binary ?? (options.build ? (await buildOurs()).path : undefined);
  const target: ServerTarget = command ? { name: "binary", command, args: ["mcp"] } : SOURCE_TARGET;
  if (options.only !== "stdio") await httpRun(target, options);
  if (options.only !== "http") await stdioRun(target, options);
}
