/**
 * The HTTP counterpart of `checkStdioServer`, on the SDK's Streamable HTTP transport with the entry's headers. Header
 * values (the token) never appear in a result: the SDK's errors carry a status and a body, and a refusal is told
 * by its status alone.
 */
import { SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { converse, type CheckResult, type Stage } from "./check.ts";

export interface HttpTarget {
  url: string;
  headers: Readonly<Record<string, string>>;
}

function explain(error: unknown, stage: Stage, url: string, tokenEnv: string | undefined): string {
  if (error instanceof SdkHttpError && (error.status === 401 || error.status === 403)) {
    const hint = tokenEnv ? `: check the token in ${tokenEnv}` : "; it may need a token (--token-env)";
    return `${stage}: the server refused the request (HTTP ${error.status})${hint}`;
  }
  if (error instanceof SdkHttpError) {
    const excerpt = String((error.data as { text?: unknown }).text ?? "")
      .trim()
      .slice(0, 160);
    return `${stage}: HTTP ${error.status} ${error.statusText ?? ""}${excerpt ? `: ${excerpt}` : ""}`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpUnexpectedContent) {
    const type = (error.data as { contentType?: string | null }).contentType || "none";
    return `${stage}: unexpected content type "${type}" (expected application/json or text/event-stream)`;
  }
  // fetch's own failures (refused, reset, DNS, TLS) carry a code of their own; a bad answer does not.
  const code = error instanceof SdkError ? undefined : (error as { code?: unknown }).code;
  if (typeof code !== "string") return `${stage} failed: ${(error as Error).message}`;
  const refused = code === "ConnectionRefused" || code === "ECONNREFUSED";
  return `cannot reach ${url}: ${refused ? "connection refused" : (error as Error).message}`;
}

export async function checkHttpServer(
  target: HttpTarget,
  options: { timeoutMs: number; expectName: string; tokenEnv?: string },
): Promise<CheckResult> {
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    requestInit: { headers: { ...target.headers } },
    // The check wants no stream of the server's own messages: the GET the SDK opens after `initialized` is
    // answered here as by a server that offers none, so only POSTs and a DELETE go out.
    fetch: async (url, init) => (init?.method === "GET" ? new Response(null, { status: 405 }) : fetch(url, init)),
  });
  return converse(
    {
      transport,
      abandon: () => void transport.close(),
      explain: (error, stage) => explain(error, stage, target.url, options.tokenEnv),
      // Ends the session politely; a server without sessions may refuse, which is fine.
      finish: () => transport.terminateSession().catch(() => {}),
    },
    options,
  );
}
