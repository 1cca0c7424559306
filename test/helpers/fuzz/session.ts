import type { Subprocess } from "bun";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  frameCase,
  IdSource,
  requestText,
  simpleRequest,
  withEnvelope,
  type Context,
  type Expected,
  type FrameCase,
  type RequestId,
} from "./frames.ts";
import { mix, Random } from "./random.ts";
import {
  hostileSkill,
  NEVER_SERVED,
  sentinels,
  writeFileSystemOddities,
  writeLayer,
  type SkillFile,
} from "./skill-files.ts";
import { checkReply, idKey, readLine, shortId, type WireMessage } from "./wire-check.ts";

/** One server process and what it is fed: a generated layer, then generated frames. */
export interface SessionPlan {
  index: number;
  /** Case number of its first case; its files come first, then its frames. */
  firstCase: number;
  kind: "frames" | "layer";
  files: number;
  frames: number;
}

export interface FuzzFailure {
  session: number;
  /** The case that caused it, when one can be named. */
  caseNumber?: number;
  label?: string;
  problem: string;
  /** The start of what was sent. */
  excerpt?: string;
}

export interface SessionReport {
  plan: SessionPlan;
  settings: string;
  failures: FuzzFailure[];
  /** Requests whose replies were checked. */
  requests: number;
  nullRefusals: number;
  notifications: number;
  kinds: Record<string, number>;
  ms: number;
  stderrTail: string;
}

export interface SessionOptions {
  /** The server's command up to and including `mcp`. */
  command: string[];
  /** A request not answered within this long is a hang. */
  replyTimeoutMs: number;
  /** Requests in flight at once. */
  window: number;
  /** Keep going after a failure (the bench collects them all); the test stops at the first. */
  keepGoing?: boolean;
}

interface Pending {
  id: RequestId;
  caseNumber?: number;
  label: string;
  expected: Omit<Expected, "id">;
  sentAt: number;
  excerpt: string;
  onReply?: (message: WireMessage) => void;
}

const EXIT_TIMEOUT_MS = 10_000;

/** The session's own settings, drawn from the seed: era, built-in skills, page size, watching. */
function settingsOf(
  seed: number,
  plan: SessionPlan,
): { era: "legacy" | "modern"; builtin: boolean; pageSize?: number; watch: boolean } {
  const rng = new Random(mix(seed ^ 0x5e551017, plan.index));
  return {
    era: rng.chance(0.25) ? "modern" : "legacy",
    builtin: rng.chance(0.5),
    ...(rng.chance(0.3) && { pageSize: rng.range(1, 7) }),
    watch: plan.kind === "frames" || rng.chance(0.5),
  };
}

class Server {
  readonly failures: FuzzFailure[] = [];
  private readonly pending = new Map<string, Pending>();
  private readonly answered = new Set<string>();
  /** Requests already failed for being late: their reply, when it comes, adds nothing. */
  private readonly late = new Set<string>();
  private readonly never = new Map<string, { caseNumber: number; label: string }>();
  private readonly optional = new Set<string>();
  private nullExpected = 0;
  nullSeen = 0;
  notifications = 0;
  requests = 0;
  private driverIds = 0;
  private stderr = "";
  private stdinClosed = false;
  exitCode: number | null | undefined;
  private wakeUp: (() => void) | undefined;
  private lastCase: { caseNumber?: number; label: string } = { label: "start-up" };
  readonly stdoutDone: Promise<void>;

  constructor(
    private readonly proc: Subprocess<"pipe", "pipe", "pipe">,
    private readonly session: number,
    private readonly options: SessionOptions,
  ) {
    this.stdoutDone = this.pump();
    void this.pumpStderr();
    void proc.exited.then((code) => {
      this.exitCode = code;
      if (!this.stdinClosed)
        this.fail({
          problem: `the server exited (code ${code}, signal ${proc.signalCode ?? "none"}) before its stdin closed`,
        });
      this.wake();
    });
  }

  get dead(): boolean {
    return this.exitCode !== undefined;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  stderrTail(): string {
    return this.stderr.slice(-3000);
  }

  /** A failure no single request explains: it names the last case written before it. */
  fail(failure: Omit<FuzzFailure, "session">): void {
    const near =
      this.lastCase.caseNumber === undefined
        ? {}
        : { caseNumber: this.lastCase.caseNumber, label: `${this.lastCase.label} (the last case written before it)` };
    this.failures.push({ session: this.session, ...near, ...failure });
  }

  private wake(): void {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    wake?.();
  }

  private async pump(): Promise<void> {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    let parts: Uint8Array[] = [];
    for await (const chunk of this.proc.stdout) {
      let start = 0;
      for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
        parts.push(chunk.subarray(start, newline));
        const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
        parts = [];
        start = newline + 1;
        let text: string;
        try {
          text = decoder.decode(bytes);
        } catch {
          this.fail({ problem: "stdout carried a line that is not UTF-8" });
          continue;
        }
        if (text !== "") this.onLine(text);
      }
      if (start < chunk.length) parts.push(chunk.slice(start));
    }
    if (parts.length > 0)
      this.fail({
        problem: `stdout ended with a partial line: ${Buffer.concat(parts).toString("utf8").slice(0, 200)}`,
      });
    this.wake();
  }

  private async pumpStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stderr) {
      this.stderr += decoder.decode(chunk, { stream: true });
      // Keep the tail only: a long session warns a lot.
      if (this.stderr.length > 200_000) this.stderr = this.stderr.slice(-100_000);
    }
  }

  private onLine(line: string): void {
    const read = readLine(line);
    if ("problem" in read) {
      this.fail({ problem: read.problem });
      return;
    }
    const message = read.message;
    if (typeof message.method === "string") {
      this.notifications++;
      return;
    }
    this.wake();
    if (message.id === null) {
      this.nullSeen++;
      const code = message.error?.code;
      if (code !== -32600)
        this.fail({
          problem: `a reply with id null that is not Invalid Request (-32600): ${JSON.stringify(message.error).slice(0, 300)}`,
        });
      if (this.nullSeen > this.nullExpected)
        this.fail({
          problem: `more replies with id null (${this.nullSeen}) than frames that call for one (${this.nullExpected})`,
        });
      return;
    }
    const key = idKey(message.id);
    const pending = this.pending.get(key);
    if (pending) {
      this.pending.delete(key);
      this.answered.add(key);
      const elapsed = performance.now() - pending.sentAt;
      const where = { caseNumber: pending.caseNumber, label: pending.label, excerpt: pending.excerpt };
      if (elapsed > this.options.replyTimeoutMs)
        this.failures.push({
          session: this.session,
          ...where,
          problem: `answered after ${Math.round(elapsed)} ms, over the ${this.options.replyTimeoutMs} ms bound`,
        });
      const problem = checkReply(message, pending.expected);
      if (problem)
        this.failures.push({ session: this.session, ...where, problem: `${problem} (id ${shortId(pending.id)})` });
      pending.onReply?.(message);
      return;
    }
    const never = this.never.get(key);
    if (never) {
      this.failures.push({
        session: this.session,
        ...never,
        problem: `answered id ${shortId(message.id)}, which must get no answer`,
      });
      return;
    }
    if (this.optional.delete(key) || this.late.delete(key)) return;
    if (this.answered.has(key)) {
      this.fail({ problem: `answered id ${shortId(message.id)} twice` });
      return;
    }
    this.fail({ problem: `a reply to id ${shortId(message.id)}, which was never sent` });
  }

  /** Writes bytes to the server's stdin; false once it is gone. */
  async write(piece: string | Uint8Array): Promise<boolean> {
    if (this.dead || this.stdinClosed) return false;
    try {
      // A write the pipe cannot take at once settles later: awaited here, so that a server gone
      // meanwhile (EPIPE) is this call's failure, not an unhandled rejection.
      await this.proc.stdin.write(piece);
      await this.proc.stdin.flush();
      return true;
    } catch {
      return false;
    }
  }

  expect(id: RequestId, entry: Omit<Pending, "id" | "sentAt">): void {
    const key = idKey(id);
    if (this.pending.has(key) || this.answered.has(key)) throw new Error(`the generator reused id ${shortId(id)}`);
    this.requests++;
    this.pending.set(key, { id, ...entry, sentAt: performance.now() });
  }

  /** Registers what a case must cause, before its bytes are written. */
  register(caseNumber: number, generated: FrameCase): void {
    this.lastCase = { caseNumber, label: generated.label };
    const excerpt = generated.writes
      .map((w) => (typeof w === "string" ? w : Buffer.from(w.subarray(0, 300)).toString("latin1")))
      .join("")
      .slice(0, 300);
    for (const expected of generated.expect)
      this.expect(expected.id, { caseNumber, label: generated.label, expected, excerpt });
    for (const id of generated.never) this.never.set(idKey(id), { caseNumber, label: generated.label });
    for (const id of generated.optional) this.optional.add(idKey(id));
    this.nullExpected += generated.nullRefusals;
  }

  /** Restarts the clock of requests registered before their (possibly large) bytes were written. */
  sent(generated: FrameCase): void {
    const now = performance.now();
    for (const expected of generated.expect) {
      const pending = this.pending.get(idKey(expected.id));
      if (pending) pending.sentAt = now;
    }
  }

  /** A request of the driver's own (context, sentinels), checked like any other; resolves with its reply. */
  async request(
    method: string,
    params: unknown,
    expected: Omit<Expected, "id">,
    label: string,
    caseNumber?: number,
  ): Promise<WireMessage | undefined> {
    const id = `driver-${++this.driverIds}`;
    const text = requestText(id, method, params);
    const reply = new Promise<WireMessage>((resolve) =>
      this.expect(id, { caseNumber, label, expected, excerpt: text.slice(0, 300), onReply: resolve }),
    );
    if (!(await this.write(`${text}\n`))) return undefined;
    return this.until(() => !this.pending.has(idKey(id))).then(async (ok) => (ok ? reply : undefined));
  }

  /**
   * Waits until `done()` holds, re-checking after every reply. Fails the oldest unanswered request
   * once it is older than the bound (a hang), and gives up then. False when it gave up.
   */
  async until(done: () => boolean): Promise<boolean> {
    while (!done()) {
      // Nothing more will be answered once the process is gone; `finish` reports what is missing.
      if (this.dead) return false;
      const oldest = this.oldestPending();
      if (oldest && performance.now() - oldest.sentAt > this.options.replyTimeoutMs) {
        this.failures.push({
          session: this.session,
          caseNumber: oldest.caseNumber,
          label: oldest.label,
          excerpt: oldest.excerpt,
          problem: `no reply within ${this.options.replyTimeoutMs} ms (id ${shortId(oldest.id)})`,
        });
        this.pending.delete(idKey(oldest.id));
        this.late.add(idKey(oldest.id));
        return false;
      }
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        setTimeout(resolve, 100);
      });
    }
    return true;
  }

  private oldestPending(): Pending | undefined {
    let oldest: Pending | undefined;
    for (const p of this.pending.values()) if (!oldest || p.sentAt < oldest.sentAt) oldest = p;
    return oldest;
  }

  /** Closes stdin (the last bytes may be a line without its newline) and checks the ending. */
  async finish(tail: string): Promise<void> {
    await this.write(tail);
    this.stdinClosed = true;
    try {
      this.proc.stdin.end();
    } catch {
      // Already gone: the exit check below says how.
    }
    const exited = await Promise.race([
      this.proc.exited.then(() => true),
      Bun.sleep(EXIT_TIMEOUT_MS + this.options.replyTimeoutMs).then(() => false),
    ]);
    if (!exited) {
      this.fail({
        problem: `the server did not exit within ${EXIT_TIMEOUT_MS + this.options.replyTimeoutMs} ms of its stdin closing`,
      });
      this.proc.kill("SIGKILL");
      await this.proc.exited;
    } else if (this.exitCode !== 0)
      this.fail({
        problem: `the server exited ${this.exitCode} (signal ${this.proc.signalCode ?? "none"}) after stdin closed, not 0`,
      });
    await Promise.race([this.stdoutDone, Bun.sleep(2000)]);
    for (const p of this.pending.values())
      this.failures.push({
        session: this.session,
        caseNumber: p.caseNumber,
        label: p.label,
        excerpt: p.excerpt,
        problem: `never answered (id ${shortId(p.id)}); the server exited first`,
      });
    if (this.nullSeen < this.nullExpected)
      this.fail({
        problem: `${this.nullExpected} frames call for a reply with id null (Invalid Request); ${this.nullSeen} came`,
      });
  }

  kill(): void {
    this.stdinClosed = true;
    this.proc.kill("SIGKILL");
  }
}

async function listAll(
  server: Server,
  ctx: Pick<Context, "era">,
  method: string,
  key: string,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const reply = await server.request(
      method,
      withEnvelope(ctx, cursor === undefined ? {} : { cursor }),
      { method, result: true },
      `${method} (driver)`,
    );
    const result = reply?.result as Record<string, unknown> | undefined;
    if (!result) break;
    items.push(...((result[key] as Record<string, unknown>[] | undefined) ?? []));
    cursor = result.nextCursor as string | undefined;
    if (cursor === undefined) break;
  }
  return items;
}

/** Lists what is served; checks that every sentinel is, that nothing that must not be is, and that sentinels answer exactly. */
async function checkServed(server: Server, ctx: Context, stage: string): Promise<void> {
  const tools = await listAll(server, ctx, "tools/list", "tools");
  const prompts = await listAll(server, ctx, "prompts/list", "prompts");
  const resources = await listAll(server, ctx, "resources/list", "resources");
  if (server.dead) return;
  ctx.tools = tools.map((t) => ({ name: String(t.name), inputSchema: t.inputSchema }));
  ctx.prompts = prompts.map((p) => ({
    name: String(p.name),
    arguments: (p.arguments as { name: string; required?: boolean }[] | undefined) ?? [],
  }));
  ctx.uris = resources.map((r) => String(r.uri));
  for (const sentinel of sentinels()) {
    const listed = (sentinel.kind === "tool" ? ctx.tools : ctx.prompts).some((entry) => entry.name === sentinel.id);
    if (!listed)
      server.fail({
        label: stage,
        problem: `the valid skill ${sentinel.id} is not listed ${stage}: broken files stopped it from being served`,
      });
  }
  for (const id of NEVER_SERVED) {
    if ([...ctx.tools, ...ctx.prompts].some((entry) => entry.name === id))
      server.fail({ label: stage, problem: `${id} is served: it lives in an ignored file or outside the layer` });
  }
  for (const call of ctx.sentinelCalls) {
    await server.request(
      call.method,
      withEnvelope(ctx, call.params),
      { method: call.method, result: true, text: call.text, ...(call.textIsPrefix && { textIsPrefix: true }) },
      `sentinel ${String(call.params.name)} ${stage}`,
    );
  }
}

/** Runs one session: a server over a generated layer, fed generated frames; every reply checked. */
export async function runSession(seed: number, plan: SessionPlan, options: SessionOptions): Promise<SessionReport> {
  const started = performance.now();
  const settings = settingsOf(seed, plan);
  const root = mkdtempSync(join(tmpdir(), "skill-central-fuzz-"));
  const project = join(root, "project");
  const layer = join(project, "skills");
  const home = join(root, "home");
  const outside = join(root, "outside");
  mkdirSync(layer, { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(
    join(project, "skill-central.yaml"),
    `builtin: ${settings.builtin}\nlayers:\n  - { name: main, path: ./skills, priority: 10 }\n`,
  );
  const kinds: Record<string, number> = {};
  const hostile: SkillFile[] = [];
  const fileCases = new Map<string, { caseNumber: number; label: string }>();
  for (let i = 0; i < plan.files; i++) {
    const caseNumber = plan.firstCase + i;
    const files = hostileSkill(Random.forCase(seed, caseNumber), caseNumber);
    hostile.push(...files);
    const origin = { caseNumber, label: `skill file ${files[0]!.path}: ${files[0]!.label}` };
    fileCases.set(`h${caseNumber}`, origin);
    fileCases.set(`sm${caseNumber}`, origin);
    kinds["skill-file"] = (kinds["skill-file"] ?? 0) + 1;
  }
  writeLayer(layer, [...sentinels().map((s) => s.file), ...hostile]);
  if (plan.kind === "layer") writeFileSystemOddities(layer, outside);

  const args = [
    ...options.command,
    ...(settings.watch ? [] : ["--no-watch"]),
    ...(settings.pageSize !== undefined ? ["--page-size", String(settings.pageSize)] : []),
  ];
  const proc = Bun.spawn(args, {
    cwd: project,
    env: { HOME: home, PATH: process.env.PATH ?? "", NO_COLOR: "1" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const server = new Server(proc, plan.index, options);
  const ctx: Context = {
    era: settings.era,
    tools: [],
    prompts: [],
    uris: [],
    // Not the files of skill folders: deleting a SKILL.md rightly turns its folder's files into
    // skills of their own (a YAML asset, a nested SKILL.md), which the checks forbid.
    hostilePaths: hostile.filter((f) => !/(^|\/)sm\d+\//.test(f.path)).map((f) => f.path),
    sentinelCalls: sentinels().map((s) => ({
      method: s.method,
      params: s.params,
      text: s.text,
      ...(s.textIsPrefix && { textIsPrefix: true }),
    })),
    ids: new IdSource(),
    newHostileFile: (rng) => hostileSkill(rng, 1_000_000 + rng.int(1_000_000))[0]!,
  };
  const settingsText = `${settings.era} era, built-in skills ${settings.builtin ? "on" : "off"}, ${settings.pageSize ? `page size ${settings.pageSize}` : "no paging"}, ${settings.watch ? "watching" : "--no-watch"}`;
  const stop = () => !options.keepGoing && server.failures.length > 0;
  try {
    if (settings.era === "legacy") {
      await server.request(
        "initialize",
        { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "0" } },
        { method: "initialize", result: true },
        "initialize (driver)",
      );
      await server.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    } else {
      await server.request("server/discover", withEnvelope(ctx, {}), { result: true }, "server/discover (driver)");
    }
    await checkServed(server, ctx, "after the first load");
    if (plan.kind === "layer") await exerciseLayer(server, ctx, seed, plan, fileCases);
    for (let i = 0; i < plan.frames && !server.dead && !stop(); i++) {
      const caseNumber = plan.firstCase + plan.files + i;
      let generated: ReturnType<typeof frameCase>;
      try {
        generated = frameCase(Random.forCase(seed, caseNumber), ctx, { layerChanges: settings.watch });
      } catch (error) {
        server.failures.push({
          session: plan.index,
          caseNumber,
          label: "generating the case",
          problem: `the fuzzer's generator failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        });
        break;
      }
      kinds[generated.kind] = (kinds[generated.kind] ?? 0) + 1;
      if (!(await server.until(() => server.inFlight < options.window))) break;
      if (generated.layerChange) applyLayerChange(layer, generated.layerChange);
      server.register(caseNumber, generated);
      for (const [n, piece] of generated.writes.entries()) {
        if (!(await server.write(piece))) break;
        // Now and then a pause between pieces, so that a split line really arrives in parts.
        if (n < generated.writes.length - 1 && caseNumber % 3 === 0) await Bun.sleep(1);
      }
      server.sent(generated);
    }
    if (!stop() && (await server.until(() => server.inFlight === 0)))
      await checkServed(server, ctx, "at the end of the session");
    await server.until(() => server.inFlight === 0);
    // The last line has no newline: end of input must still deliver it.
    const tail = simpleRequest(ctx, "eof-tail");
    if (!server.dead)
      server.expect("eof-tail", {
        label: "a request without a newline just before EOF",
        expected: tail.expected,
        excerpt: tail.text,
      });
    await server.finish(tail.text);
  } catch (error) {
    server.fail({
      problem: `the fuzz driver failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    });
    server.kill();
  } finally {
    if (!server.dead) server.kill();
    rmSync(root, { recursive: true, force: true });
  }
  return {
    plan,
    settings: settingsText,
    failures: server.failures,
    requests: server.requests,
    nullRefusals: server.nullSeen,
    notifications: server.notifications,
    kinds,
    ms: performance.now() - started,
    stderrTail: server.stderrTail(),
  };
}

function applyLayerChange(layer: string, change: NonNullable<FrameCase["layerChange"]>): void {
  const full = join(layer, ...change.path.split("/"));
  if (change.content === undefined) {
    try {
      unlinkSync(full);
    } catch {
      // Already gone.
    }
    return;
  }
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, change.content);
}

/** Every served skill of a generated layer is called, read and completed once, with generated arguments. */
async function exerciseLayer(
  server: Server,
  ctx: Context,
  seed: number,
  plan: SessionPlan,
  fileCases: Map<string, { caseNumber: number; label: string }>,
): Promise<void> {
  const rng = new Random(mix(seed ^ 0x1a7e5, plan.index));
  const calls: { method: string; params: Record<string, unknown>; name: string }[] = [];
  for (const tool of ctx.tools)
    calls.push({
      method: "tools/call",
      name: tool.name,
      params: { name: tool.name, arguments: argumentsLike(rng, tool.inputSchema) },
    });
  for (const prompt of ctx.prompts) {
    const args: Record<string, string> = {};
    for (const a of prompt.arguments) args[a.name] = rng.pick(["x", "calm", "{{y}}", "ü", ""]);
    calls.push({ method: "prompts/get", name: prompt.name, params: { name: prompt.name, arguments: args } });
    calls.push({
      method: "completion/complete",
      name: prompt.name,
      params: {
        ref: { type: "ref/prompt", name: prompt.name },
        argument: { name: prompt.arguments[0]?.name ?? "x", value: "" },
      },
    });
  }
  for (const uri of ctx.uris)
    calls.push({ method: "resources/read", name: uri.replace("skill://skills/", ""), params: { uri } });
  const inFlight: Promise<unknown>[] = [];
  for (const call of calls) {
    const origin = fileCases.get(call.name);
    const label = `${call.method} ${call.name}${origin ? ` (${origin.label})` : ""}`;
    if (!(await server.until(() => server.inFlight < 8))) return;
    inFlight.push(
      server.request(call.method, withEnvelope(ctx, call.params), { method: call.method }, label, origin?.caseNumber),
    );
  }
  await Promise.all(inFlight);
}

/** Arguments shaped after a schema's properties, with a backtracking input now and then. */
function argumentsLike(rng: Random, schema: unknown): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | null)?.properties;
  if (typeof properties !== "object" || properties === null) return args;
  for (const [name, property] of Object.entries(properties)) {
    const type = property?.type;
    const value =
      type === "string"
        ? rng.pick(["x", `${"a".repeat(30)}!`, "ü"])
        : type === "integer" || type === "number"
          ? 3
          : type === "boolean"
            ? true
            : type === "array"
              ? [1, "a", [2]]
              : type === "object"
                ? { a: 1 }
                : "v";
    Object.defineProperty(args, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return args;
}
