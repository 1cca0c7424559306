import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { join } from "node:path";

/** The two protocol eras: 2025-11-25 (`initialize` handshake) and 2026-07-28 (stateless, `server/discover`). */
export type Era = "legacy" | "modern";
export const MODERN_VERSION = "2026-07-28";

/** How a test client introduces itself: as an IDE does (`clientInfo.name`, declared capabilities). */
export interface ClientIdentity {
  name: string;
  capabilities?: Record<string, unknown>;
}

/** The SDK's v2 client, speaking the given era (the default client speaks 2025-11-25). */
export function newClient(era: Era = "legacy", identity: ClientIdentity = { name: "skill-central-tests" }): Client {
  return new Client(
    { name: identity.name, version: "0.0.0" },
    {
      ...(era === "modern" && { versionNegotiation: { mode: { pin: MODERN_VERSION } } }),
      ...(identity.capabilities && { capabilities: identity.capabilities as never }),
    },
  );
}

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
export async function connect(
  target: ServerTarget,
  cwd: string,
  home: string,
  extraArgs: string[] = [],
  era: Era = "legacy",
  identity?: ClientIdentity,
): Promise<Connected> {
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
  const client = newClient(era, identity);
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
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  });
}

export function requestLine(id: number | string, method: string, params: unknown = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/** The JSON-RPC error a request failed with, as the SDK client reports it (its message is the wire's, unprefixed). */
export async function wireError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: number; message: string };
    return { code: e.code, message: e.message };
  }
  throw new Error("expected the request to fail");
}

type ListMethod = "prompts/list" | "tools/list" | "resources/list";
const LIST_KEYS = { "prompts/list": "prompts", "tools/list": "tools", "resources/list": "resources" } as const;

/**
 * One page of a list exactly as the server sent it. The v2 client's `listPrompts()` etc. follow
 * every cursor themselves when called without one; pagination tests need the pages.
 */
export async function listPage(
  client: Client,
  method: ListMethod,
  cursor?: string,
): Promise<{ names: string[]; nextCursor?: string }> {
  const result = (await client.request({ method, params: cursor === undefined ? {} : { cursor } })) as Record<
    string,
    unknown
  > & { nextCursor?: string };
  const items = result[LIST_KEYS[method]] as { name: string; uri?: string }[];
  return {
    names: items.map((item) => item.uri ?? item.name),
    ...(result.nextCursor !== undefined && { nextCursor: result.nextCursor }),
  };
}
