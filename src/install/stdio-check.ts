import { VERSION } from "../version.ts";

/**
 * Starts a stdio MCP server exactly as a client would and completes `initialize` and
 * `tools/list`: newline-delimited JSON-RPC over the child's stdin/stdout, bounded by a timeout,
 * with its stderr kept for the error message. Deliberately free of the MCP SDK: this checks the
 * wire as any client sees it.
 */

export const CHECK_PROTOCOL_VERSION = "2025-11-25";
export const CLIENT_INFO = { name: "skill-central-install", version: VERSION };

export interface CheckSuccess {
  ok: true;
  serverName: string;
  serverVersion: string;
  protocolVersion: string;
  tools: number;
}

export interface CheckFailure {
  ok: false;
  reason: string;
}

export type CheckResult = CheckSuccess | CheckFailure;

export interface StdioTarget {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** Keeps the last part of a growing text: the end of stderr says why a process stopped. */
const STDERR_KEEP = 4000;

function tail(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return "";
  const lines = (trimmed.length > STDERR_KEEP ? "…" + trimmed.slice(-STDERR_KEEP) : trimmed).split("\n").slice(-12);
  return `\n  stderr: ${lines.join("\n          ")}`;
}

interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

/** What `initialize` and `tools/list` must return, shared with the HTTP check. */
export function readInitialize(result: unknown, expectName: string): { serverName: string; serverVersion: string; protocolVersion: string } | string {
  const r = result as { protocolVersion?: unknown; serverInfo?: { name?: unknown; version?: unknown } } | undefined;
  if (!r || typeof r.protocolVersion !== "string" || typeof r.serverInfo?.name !== "string") return "the initialize result has no protocolVersion or serverInfo";
  if (r.serverInfo.name !== expectName) return `a server named "${r.serverInfo.name}" answered, not ${expectName}`;
  return { serverName: r.serverInfo.name, serverVersion: String(r.serverInfo.version ?? ""), protocolVersion: r.protocolVersion };
}

export function readToolsList(result: unknown): number | string {
  const tools = (result as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) ? tools.length : "the tools/list result has no tools array";
}

export function rpcError(message: JsonRpcMessage): string {
  return `error ${String(message.error?.code ?? "?")}: ${String(message.error?.message ?? "")}`;
}

export async function checkStdioServer(target: StdioTarget, options: { timeoutMs: number; expectName: string }): Promise<CheckResult> {
  let proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  const env = Object.fromEntries(Object.entries(target.env).filter((e): e is [string, string] => e[1] !== undefined));
  try {
    proc = Bun.spawn([target.command, ...target.args], { cwd: target.cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "not found" : code === "EACCES" ? "not executable" : (error as Error).message;
    return { ok: false, reason: `cannot start ${target.command} (in ${target.cwd}): ${why}` };
  }

  let stderr = "";
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) {
      stderr += decoder.decode(chunk, { stream: true });
      if (stderr.length > STDERR_KEEP * 4) stderr = stderr.slice(-STDERR_KEEP * 2);
    }
  })().catch(() => {});

  const send = (message: object) => {
    proc.stdin.write(JSON.stringify(message) + "\n");
    void proc.stdin.flush();
  };

  let stage = "initialize";
  const seconds = `${(options.timeoutMs / 1000).toLocaleString("en", { maximumFractionDigits: 3 })} s`;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const timeout = new Promise<CheckFailure>((resolve) => {
    timer = setTimeout(() => {
      timedOut = true;
      resolve({ ok: false, reason: `no answer to ${stage} within ${seconds}` });
    }, options.timeoutMs);
  });

  const conversation = (async (): Promise<CheckResult> => {
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    /** The response to request `id`, answering (with "method not found") any request the server makes meanwhile. */
    const responseTo = async (id: number): Promise<JsonRpcMessage | string> => {
      for (;;) {
        let newline = buffer.indexOf("\n");
        while (newline < 0) {
          const { value, done } = await reader.read();
          if (done) {
            const code = await proc.exited;
            return `exited with code ${code} before answering ${stage}`;
          }
          buffer += decoder.decode(value, { stream: true });
          newline = buffer.indexOf("\n");
        }
        const line = buffer.slice(0, newline).replace(/\r$/, "");
        buffer = buffer.slice(newline + 1);
        if (line.trim() === "") continue;
        let message: JsonRpcMessage;
        try {
          message = JSON.parse(line) as JsonRpcMessage;
        } catch {
          return `wrote a line that is not JSON-RPC to stdout (clients drop such servers): ${line.length > 160 ? line.slice(0, 160) + "…" : line}`;
        }
        if (message.id === id && message.method === undefined) return message;
        if (message.method !== undefined && message.id !== undefined) {
          send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
        }
      }
    };

    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: CHECK_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO } });
    const init = await responseTo(1);
    if (typeof init === "string") return { ok: false, reason: init };
    if (init.error) return { ok: false, reason: `initialize failed: ${rpcError(init)}` };
    const info = readInitialize(init.result, options.expectName);
    if (typeof info === "string") return { ok: false, reason: info };

    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    stage = "tools/list";
    send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    const list = await responseTo(2);
    if (typeof list === "string") return { ok: false, reason: list };
    if (list.error) return { ok: false, reason: `tools/list failed: ${rpcError(list)}` };
    const tools = readToolsList(list.result);
    if (typeof tools === "string") return { ok: false, reason: tools };
    return { ok: true, ...info, tools };
  })();

  const result = await Promise.race([conversation, timeout]);
  clearTimeout(timer);
  // Close stdin as a client does on shutdown; a server that lingers is stopped.
  try {
    proc.stdin.end();
  } catch {
    // already closed
  }
  const exited = !timedOut && (await Promise.race([proc.exited.then(() => true), Bun.sleep(2000).then(() => false)]));
  if (!exited) proc.kill("SIGKILL");
  await Promise.race([stderrDone, Bun.sleep(500)]);
  if (result.ok) return result;
  return { ok: false, reason: `${result.reason}${tail(stderr)}` };
}
