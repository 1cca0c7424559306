import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { join } from "node:path";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
export const SOURCE_ENTRY = join(REPO_ROOT, "src", "cli.ts");

/** How to start the server under test: the source entry, or (see binary tests) a compiled binary. */
export interface ServerTarget {
  name: string;
  command: string;
  args: string[];
}

export const SOURCE_TARGET: ServerTarget = { name: "source", command: process.execPath, args: [SOURCE_ENTRY, "mcp"] };

export interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

/** Spawns the server in `cwd` with an isolated HOME and connects the SDK's own Client to it. */
export async function connect(target: ServerTarget, cwd: string, home: string, extraArgs: string[] = []): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: target.command,
    args: [...target.args, ...extraArgs],
    cwd,
    env: { HOME: home, PATH: process.env.PATH ?? "", NO_COLOR: "1" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "skill-central-tests", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export interface RawSession {
  /** Every stdout line, in order. */
  stdout: string[];
  stderr: string;
  exitCode: number | null;
  /** Milliseconds from closing stdin to the process exiting. */
  exitAfterEofMs: number;
}

/**
 * Writes raw lines to the server's stdin, waits for `expectResponses` responses (or, with
 * `closeRightAway`, closes stdin at once), closes stdin and collects everything: for checks the SDK client would hide (stdout purity, garbage, EOF).
 */
export async function rawSession(
  target: ServerTarget,
  cwd: string,
  home: string,
  lines: (string | Uint8Array)[],
  expectResponses: number,
  options: { closeRightAway?: boolean; timeoutMs?: number } = {},
): Promise<RawSession> {
  const proc = Bun.spawn([target.command, ...target.args], {
    cwd,
    env: { HOME: home, PATH: process.env.PATH ?? "" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  for (const line of lines) {
    proc.stdin.write(line);
    if (typeof line === "string" && !line.endsWith("\n")) proc.stdin.write("\n");
  }
  await proc.stdin.flush();
  let eofAt = performance.now();
  if (options.closeRightAway) proc.stdin.end();
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = proc.stdout.getReader();
  const deadline = Date.now() + (options.timeoutMs ?? 15000);
  const countResponses = () => buffer.split("\n").filter((l) => l.includes('"id"')).length;
  while (countResponses() < expectResponses && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
  }
  if (!options.closeRightAway) {
    eofAt = performance.now();
    proc.stdin.end();
  }
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
  }
  const exitCode = await proc.exited;
  const exitAfterEofMs = performance.now() - eofAt;
  const stderr = await new Response(proc.stderr).text();
  return { stdout: buffer.split("\n").filter((l) => l !== ""), stderr, exitCode, exitAfterEofMs };
}

export function initializeLine(id: number | string = 0): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  });
}

export function requestLine(id: number | string, method: string, params: unknown = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/** The JSON-RPC error a request failed with, as the SDK client reports it. */
export async function wireError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: number; message: string };
    return { code: e.code, message: e.message };
  }
  throw new Error("expected the request to fail");
}
