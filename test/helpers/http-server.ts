import { type Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Subprocess } from "bun";
import { newClient, type ClientIdentity, type Era, type ServerTarget } from "./server.ts";

/** A `skill-central mcp --http` process under test. */
export interface HttpServer {
  /** The MCP endpoint it printed, e.g. http://127.0.0.1:40123/mcp. */
  url: string;
  /** The origin part of `url`, for /healthz and /readyz. */
  base: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything it wrote to stderr so far (the access log among it). */
  stderr(): string;
  /** Sends `signal` (SIGTERM by default) and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

const STARTED = /serving MCP over HTTP at (http:\/\/\S+\/mcp)/;

export interface HttpServerStart {
  target: ServerTarget;
  /** The project folder it runs in. */
  cwd: string;
  /** Its HOME (the user's config and layers). */
  home: string;
  /** Options after `--http` (`--port 0` unless they name a port). */
  args?: string[];
  /** Variables besides HOME, PATH and NO_COLOR. */
  env?: Record<string, string>;
  /** How long it may take to say where it serves (15 s). */
  timeoutMs?: number;
}

/**
 * Starts the server over HTTP on a free port (`--port 0`) and waits for the line that names its
 * URL. Rejects with its stderr if it exits first or says nothing within the timeout.
 */
export async function startHttpServer({
  target,
  cwd,
  home,
  args: extraArgs = [],
  env = {},
  timeoutMs = 15_000,
}: HttpServerStart): Promise<HttpServer> {
  const args = [...target.args, "--http", ...(extraArgs.includes("--port") ? [] : ["--port", "0"]), ...extraArgs];
  const proc = Bun.spawn([target.command, ...args], {
    cwd,
    env: { HOME: home, PATH: process.env.PATH ?? "", NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  const deadline = Date.now() + timeoutMs;
  while (!STARTED.test(stderr)) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      await reading.catch(() => {});
      throw new Error(`the HTTP server did not start (exit ${proc.exitCode}):\n${stderr}`);
    }
    await Bun.sleep(10);
  }
  const url = STARTED.exec(stderr)![1]!;
  return {
    url,
    base: new URL(url).origin,
    proc,
    stderr: () => stderr,
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null) proc.kill(signal);
      const code = await proc.exited;
      await reading.catch(() => {});
      return code;
    },
  };
}

/** The SDK's v2 client over Streamable HTTP, in the given era, with optional extra headers (a token). */
export async function connectHttp(
  url: string,
  era: Era = "legacy",
  headers: Record<string, string> = {},
  identity?: ClientIdentity,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = newClient(era, identity);
  await client.connect(transport);
  return { client, transport };
}

/** A raw JSON-RPC POST to the endpoint, as a 2025-11-25 client without a session would send it. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

/** Lines of the access log (one per request). */
export function accessLog(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("[skill-central] http "));
}
