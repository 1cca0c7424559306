#!/usr/bin/env bun
/**
 * HTTP load: concurrent clients making tools/call and prompts/get, against the same mix over
 * stdio, and a session churn that must leave the server's memory and file descriptors where they
 * started. Not a test: figures for docs and reports. `bun bench/http-load.ts --help`.
 *
 * Every answer is checked against the corpus (as in bench/run.ts), so a server that answers
 * wrongly cannot post a fast number. Client and server share the machine: on two cores the
 * client's own work is part of what is measured.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ensureCorpus } from "./lib/corpora.ts";
import { buildOurs, REPO_ROOT } from "./lib/build.ts";
import type { CorpusInfo } from "./corpus.ts";
import { freePort, startLocalIssuer } from "./lib/oauth-issuer.ts";
import { median } from "./lib/stats.ts";

const USAGE = `usage: bun bench/http-load.ts [options]

  --size N         corpus size in skill files (default 1000)
  --clients N      concurrent clients: HTTP sessions, and requests in flight over stdio (default 100)
  --seconds S      how long each load phase runs (default 5)
  --churn N        sessions opened and closed in the churn phase (default 10000)
  --binary PATH    benchmark this compiled binary instead of building one
  --source         run bun src/cli.ts instead of a binary
  --auth           instead: 2026-07-28 throughput with a static token against an OAuth JWT
                   (a local issuer with a JWKS), interleaved over --rounds rounds
  --rounds N       rounds of the --auth comparison (default 3)
  --help           show this help
`;

interface Options {
  size: number;
  clients: number;
  seconds: number;
  churn: number;
  binary?: string;
  source: boolean;
  auth: boolean;
  rounds: number;
}

function parse(argv: string[]): Options | null {
  const o: Options = { size: 1000, clients: 100, seconds: 5, churn: 10_000, source: false, auth: false, rounds: 3 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${arg} needs a positive number`);
      return v;
    };
    if (arg === "--help") return null;
    else if (arg === "--size") o.size = value();
    else if (arg === "--clients") o.clients = value();
    else if (arg === "--seconds") o.seconds = value();
    else if (arg === "--churn") o.churn = value();
    else if (arg === "--binary") o.binary = argv[++i];
    else if (arg === "--source") o.source = true;
    else if (arg === "--auth") o.auth = true;
    else if (arg === "--rounds") o.rounds = value();
    else throw new Error(`unknown option ${arg}`);
  }
  return o;
}

const log = (line: string) => process.stderr.write(`[http-load] ${line}\n`);

async function compileOurs(): Promise<string> {
  log("compiling skill-central…");
  return (await buildOurs()).path;
}

// ---------------------------------------------------------------------------
// The requests and their checks

interface Mix {
  /** Alternates: even → tools/call, odd → prompts/get. */
  params(i: number): { method: string; params: Record<string, unknown> };
  check(i: number, result: unknown): string | null;
}

function mixFor(info: CorpusInfo): Mix {
  const tool = { name: info.sampleTool.id, arguments: info.sampleTool.arguments };
  const prompt = { name: info.samplePrompt.id, arguments: info.samplePrompt.arguments };
  return {
    params: (i) => (i % 2 === 0 ? { method: "tools/call", params: tool } : { method: "prompts/get", params: prompt }),
    check(i, result) {
      const r = result as { content?: { text?: string }[]; messages?: { content?: { text?: string } }[] } | undefined;
      const text = i % 2 === 0 ? r?.content?.[0]?.text : r?.messages?.[0]?.content?.text;
      const want = i % 2 === 0 ? info.sampleTool.expectedText : info.samplePrompt.expectedText;
      return text === want
        ? null
        : `${i % 2 === 0 ? "tools/call" : "prompts/get"} answered ${JSON.stringify(result).slice(0, 200)}`;
    },
  };
}

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "http-load", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

// ---------------------------------------------------------------------------
// Measuring a process

function procStatus(pid: number): { rssMb: number; peakMb: number; fds: number; sockets: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? Number.NaN);
  const fds = readdirSync(`/proc/${pid}/fd`);
  const sockets = fds.filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:");
    } catch {
      return false;
    }
  }).length;
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024, fds: fds.length, sockets };
}

interface Phase {
  name: string;
  requests: number;
  seconds: number;
  latencies: number[];
  problems: string[];
  peakMb: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** A report's title and the line saying how it was made. */
function reportHead(title: string, o: Options): string[] {
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  const how = `\`bun bench/http-load.ts ${process.argv.slice(2).join(" ")}\` · ${o.size} skill files · ${o.source ? "source" : "binary"} · Bun ${Bun.version} · load average ${load}`;
  return [`# ${title}, ${new Date().toISOString().slice(0, 10)}`, "", how, ""];
}

const PHASE_TABLE_HEAD = [
  "| phase | requests | per second | p50 ms | p99 ms | server peak RSS MB | wrong answers |",
  "| --- | --- | --- | --- | --- | --- | --- |",
];

function row(phase: Phase): string {
  const sorted = [...phase.latencies].sort((a, b) => a - b);
  return `| ${phase.name} | ${phase.requests.toLocaleString("en")} | ${Math.round(phase.requests / phase.seconds).toLocaleString("en")} | ${percentile(sorted, 50).toFixed(2)} | ${percentile(sorted, 99).toFixed(2)} | ${phase.peakMb.toFixed(1)} | ${phase.problems.length} |`;
}

// ---------------------------------------------------------------------------
// Stdio: one process, `clients` requests kept in flight on one pipe

async function stdioPhase(command: string[], cwd: string, home: string, mix: Mix, o: Options): Promise<Phase> {
  const proc = Bun.spawn([...command, "mcp", "--no-watch"], {
    cwd,
    env: { HOME: home, PATH: process.env.PATH ?? "" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const pending = new Map<number, { at: number; i: number; resolve: (m: unknown) => void }>();
  let buffer = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const message = JSON.parse(line) as { id?: number };
        const waiting = message.id === undefined ? undefined : pending.get(message.id);
        if (waiting) {
          pending.delete(message.id!);
          waiting.resolve(message);
        }
      }
    }
  })();
  let nextId = 0;
  const send = (method: string, params: unknown) =>
    new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
      const id = nextId++;
      pending.set(id, { at: performance.now(), i: id, resolve: resolve as (m: unknown) => void });
      proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      void proc.stdin.flush();
    });
  await send("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "http-load", version: "0" },
  });
  proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const phase: Phase = {
    name: `stdio, ${o.clients} in flight`,
    requests: 0,
    seconds: o.seconds,
    latencies: [],
    problems: [],
    peakMb: 0,
  };
  const deadline = performance.now() + o.seconds * 1000;
  let counter = 0;
  await Promise.all(
    Array.from({ length: o.clients }, async () => {
      while (performance.now() < deadline) {
        const i = counter++;
        const { method, params } = mix.params(i);
        const started = performance.now();
        const reply = await send(method, params);
        phase.latencies.push(performance.now() - started);
        phase.requests++;
        const problem = reply.error ? `error ${JSON.stringify(reply.error)}` : mix.check(i, reply.result);
        if (problem && phase.problems.length < 5) phase.problems.push(problem);
      }
    }),
  );
  phase.peakMb = procStatus(proc.pid).peakMb;
  proc.stdin.end();
  await proc.exited;
  return phase;
}

// ---------------------------------------------------------------------------
// HTTP

async function startHttp(
  command: string[],
  cwd: string,
  home: string,
  extra: { args?: string[]; headers?: Record<string, string> } = {},
): Promise<{ proc: Subprocess; url: string }> {
  const given = extra.args ?? [];
  const port = given.includes("--port") ? [] : ["--port", "0"];
  const args = ["mcp", "--http", ...port, "--no-watch", "--max-sessions", "100000", ...given];
  const proc = Bun.spawn([...command, ...args], {
    cwd,
    env: { HOME: home, PATH: process.env.PATH ?? "" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const decoder = new TextDecoder();
  let text = "";
  const reader = proc.stderr.getReader();
  while (!/serving MCP over HTTP at (\S+\/mcp)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server did not start: ${text}`);
    text += decoder.decode(value);
  }
  // Keep draining stderr (the access log) so the pipe never fills.
  void (async () => {
    for (;;) if ((await reader.read()).done) break;
  })();
  const url = /serving MCP over HTTP at (\S+\/mcp)/.exec(text)![1]!;
  // Wait for the skills.
  while ((await fetch(url.replace("/mcp", "/readyz"), { headers: extra.headers })).status !== 200) await Bun.sleep(20);
  return { proc, url };
}

const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function openSession(url: string, extra: Record<string, string> = {}): Promise<string> {
  const init = await fetch(url, {
    method: "POST",
    headers: { ...JSON_HEADERS, ...extra },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "http-load", version: "0" } },
    }),
  });
  const session = init.headers.get("mcp-session-id");
  await init.arrayBuffer();
  if (!session) throw new Error(`initialize answered ${init.status}`);
  const headers = { ...JSON_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25", ...extra };
  await (
    await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).arrayBuffer();
  return session;
}

async function closeSession(url: string, session: string, extra: Record<string, string> = {}): Promise<void> {
  const response = await fetch(url, {
    method: "DELETE",
    headers: { "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25", ...extra },
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`DELETE answered ${response.status}`);
}

async function httpPhase(
  url: string,
  pid: number,
  mix: Mix,
  o: Options,
  era: "legacy" | "modern",
  auth?: { name: string; headersFor: (client: number) => Record<string, string> },
): Promise<Phase> {
  const sessions =
    era === "legacy"
      ? await Promise.all(Array.from({ length: o.clients }, () => openSession(url)))
      : Array.from({ length: o.clients }, () => undefined);
  const phase: Phase = {
    name:
      auth?.name ??
      (era === "legacy" ? `HTTP, ${o.clients} sessions (2025-11-25)` : `HTTP, ${o.clients} clients (2026-07-28)`),
    requests: 0,
    seconds: o.seconds,
    latencies: [],
    problems: [],
    peakMb: 0,
  };
  const deadline = performance.now() + o.seconds * 1000;
  let counter = 0;
  await Promise.all(
    sessions.map(async (session, client) => {
      const authHeaders = auth?.headersFor(client) ?? {};
      while (performance.now() < deadline) {
        const i = counter++;
        const { method, params } = mix.params(i);
        const headers: Record<string, string> = session
          ? { ...JSON_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25" }
          : {
              ...JSON_HEADERS,
              "MCP-Protocol-Version": "2026-07-28",
              "Mcp-Method": method,
              "Mcp-Name": String(params.name),
              ...authHeaders,
            };
        const body = { jsonrpc: "2.0", id: i, method, params: session ? params : { ...params, _meta: MODERN_META } };
        const started = performance.now();
        const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
        const reply = (await response.json()) as { result?: unknown; error?: unknown };
        phase.latencies.push(performance.now() - started);
        phase.requests++;
        const problem = reply.error ? `error ${JSON.stringify(reply.error)}` : mix.check(i, reply.result);
        if (problem && phase.problems.length < 5) phase.problems.push(problem);
      }
    }),
  );
  phase.peakMb = procStatus(pid).peakMb;
  if (era === "legacy") await Promise.all(sessions.map((s) => closeSession(url, s!)));
  return phase;
}

/**
 * Opens and closes `count` sessions, 50 at a time. Each request on its own connection
 * (`Connection: close`), so no kept-alive socket of the client's is counted as the server's.
 */
async function churn(url: string, count: number): Promise<void> {
  const close = { Connection: "close" };
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < count) {
        next++;
        await closeSession(url, await openSession(url, close), close);
      }
    }),
  );
}

// ---------------------------------------------------------------------------

async function main(): Promise<number> {
  let o: Options | null;
  try {
    o = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (!o) {
    process.stdout.write(USAGE);
    return 0;
  }
  const command = o.source ? [process.execPath, join(REPO_ROOT, "src", "cli.ts")] : [o.binary ?? (await compileOurs())];
  const corpus = await ensureCorpus(join(REPO_ROOT, "bench", ".corpus"), o.size, 42);
  const home = (await import("node:fs")).mkdtempSync(join((await import("node:os")).tmpdir(), "sc-http-load-"));
  const mix = mixFor(corpus.info);
  if (o.auth) return authComparison(command, corpus.dir, home, mix, o);

  log(`stdio: ${o.clients} requests in flight for ${o.seconds} s…`);
  const stdio = await stdioPhase(command, corpus.dir, home, mix, o);

  const { proc, url } = await startHttp(command, corpus.dir, home);
  try {
    log(`HTTP: ${o.clients} sessions for ${o.seconds} s…`);
    const legacy = await httpPhase(url, proc.pid, mix, o, "legacy");
    log(`HTTP: ${o.clients} stateless 2026-07-28 clients for ${o.seconds} s…`);
    const modern = await httpPhase(url, proc.pid, mix, o, "modern");

    // Churn: a whole round first. The engine's heap grows to a plateau over the first ten
    // thousand or so sessions (measured: +20 MB over the first 15,000, then flat); the question
    // is whether memory keeps growing after that, which a leak would make it do.
    const warmUp = o.churn;
    log(`churn: ${warmUp} sessions to warm up, then ${o.churn}…`);
    await churn(url, warmUp);
    await Bun.sleep(1000);
    const before = procStatus(proc.pid);
    const churnStarted = performance.now();
    await churn(url, o.churn);
    const churnSeconds = (performance.now() - churnStarted) / 1000;
    await Bun.sleep(1000);
    const after = procStatus(proc.pid);

    const lines = [
      ...reportHead("HTTP load", o),
      "Each client alternates tools/call and prompts/get, one request at a time; latency is per request, as the client sees it. Client and server share the machine.",
      "",
      ...PHASE_TABLE_HEAD,
      row(stdio),
      row(legacy),
      row(modern),
      "",
      `Session churn: ${o.churn.toLocaleString("en")} sessions opened (initialize, initialized) and closed (DELETE), 50 at a time, in ${churnSeconds.toFixed(1)} s, after ${warmUp} to warm up.`,
      "",
      "| | RSS MB | open fds | of which sockets |",
      "| --- | --- | --- | --- |",
      `| before | ${before.rssMb.toFixed(1)} | ${before.fds} | ${before.sockets} |`,
      `| after | ${after.rssMb.toFixed(1)} | ${after.fds} | ${after.sockets} |`,
      `| change | ${(after.rssMb - before.rssMb).toFixed(1)} | ${after.fds - before.fds} | ${after.sockets - before.sockets} |`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    const problems = [...stdio.problems, ...legacy.problems, ...modern.problems];
    for (const p of problems) log(`WRONG ANSWER: ${p}`);
    return problems.length > 0 ? 1 : 0;
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    (await import("node:fs")).rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The cost of OAuth: one server with a static token file and OAuth against a local issuer;
 * rounds of 2026-07-28 load with the static token, then with a JWT per client (RS256, validated
 * against the issuer's JWKS), interleaved so both see the same machine.
 */
async function authComparison(command: string[], cwd: string, home: string, mix: Mix, o: Options): Promise<number> {
  const { mkdirSync, rmSync, writeFileSync } = await import("node:fs");
  const issuer = await startLocalIssuer();
  const port = freePort();
  const publicUrl = `http://127.0.0.1:${port}/mcp`;
  const staticToken = `bench-static-${crypto.randomUUID()}`;
  const tokenFile = join(home, "tokens");
  writeFileSync(tokenFile, `bench ${staticToken}\n`, { mode: 0o600 });
  mkdirSync(join(home, ".skill-central"));
  writeFileSync(
    join(home, ".skill-central", "config.yaml"),
    `http:\n  publicUrl: ${publicUrl}\n  oauth:\n    issuer: ${issuer.issuer}\n    scopes: [skills:read]\n`,
  );
  const jwts = await Promise.all(Array.from({ length: o.clients }, (_, i) => issuer.mint(publicUrl, `client-${i}`)));
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const { proc, url } = await startHttp(command, cwd, home, {
    args: ["--port", String(port), "--token-file", tokenFile],
    headers: bearer(staticToken),
  });
  const phases: { static: Phase[]; jwt: Phase[] } = { static: [], jwt: [] };
  try {
    for (let round = 1; round <= o.rounds; round++) {
      log(`round ${round}/${o.rounds}: static token, then JWT, ${o.clients} clients for ${o.seconds} s each…`);
      phases.static.push(
        await httpPhase(url, proc.pid, mix, o, "modern", {
          name: `static token, round ${round}`,
          headersFor: () => bearer(staticToken),
        }),
      );
      phases.jwt.push(
        await httpPhase(url, proc.pid, mix, o, "modern", {
          name: `OAuth JWT, round ${round}`,
          headersFor: (client) => bearer(jwts[client]!),
        }),
      );
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    issuer.stop();
    rmSync(home, { recursive: true, force: true });
  }
  const rate = (p: Phase) => p.requests / p.seconds;
  const p99 = (p: Phase) =>
    percentile(
      [...p.latencies].sort((a, b) => a - b),
      99,
    );
  const staticRate = median(phases.static.map(rate));
  const jwtRate = median(phases.jwt.map(rate));
  const lines = [
    ...reportHead("HTTP with OAuth against static tokens", o),
    ...PHASE_TABLE_HEAD,
    ...phases.static.flatMap((p, i) => [row(p), row(phases.jwt[i]!)]),
    "",
    "| | static token | OAuth JWT | JWT ÷ static |",
    "| --- | --- | --- | --- |",
    `| requests per second (median of ${o.rounds}) | ${Math.round(staticRate).toLocaleString("en")} | ${Math.round(jwtRate).toLocaleString("en")} | ${(jwtRate / staticRate).toFixed(3)} |`,
    `| p99 ms (median of ${o.rounds}) | ${median(phases.static.map(p99)).toFixed(2)} | ${median(phases.jwt.map(p99)).toFixed(2)} | ${(median(phases.jwt.map(p99)) / median(phases.static.map(p99))).toFixed(3)} |`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  const problems = [...phases.static, ...phases.jwt].flatMap((p) => p.problems);
  for (const p of problems) log(`WRONG ANSWER: ${p}`);
  return problems.length > 0 ? 1 : 0;
}

process.exit(await main());
