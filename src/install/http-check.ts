import { CHECK_PROTOCOL_VERSION, CLIENT_INFO, readInitialize, readToolsList, rpcError, type CheckResult } from "./stdio-check.ts";

/**
 * The HTTP counterpart of `checkStdioServer`: a Streamable HTTP `initialize` POST (accepting a
 * JSON or an event-stream answer), `notifications/initialized`, then `tools/list` in the session
 * the server opened. Header values (the token) never appear in a result.
 */

export interface HttpTarget {
  url: string;
  headers: Readonly<Record<string, string>>;
}

type Message = { id?: unknown; method?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };

/** The JSON-RPC response with `id` in a JSON body or an SSE stream. */
async function responseIn(response: Response, id: number): Promise<Message | string> {
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  const candidates: unknown[] = [];
  if (type.includes("text/event-stream")) {
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).replace(/^ /, ""))
        .join("\n");
      if (data) {
        try {
          candidates.push(JSON.parse(data));
        } catch {
          return `the event stream carried data that is not JSON: ${data.slice(0, 120)}`;
        }
      }
    }
  } else if (type.includes("application/json")) {
    try {
      const body = JSON.parse(text) as unknown;
      candidates.push(...(Array.isArray(body) ? body : [body]));
    } catch {
      return `the response is not JSON: ${text.slice(0, 120)}`;
    }
  } else {
    return `unexpected content type "${type || "none"}" (expected application/json or text/event-stream)`;
  }
  const match = candidates.find((m) => (m as Message)?.id === id) as Message | undefined;
  return match ?? `no response with id ${id} in the answer`;
}

function httpProblem(response: Response, body: string, tokenEnv: string | undefined): string {
  if (response.status === 401 || response.status === 403) {
    return `the server refused the request (HTTP ${response.status})${tokenEnv ? `: check the token in ${tokenEnv}` : "; it may need a token (--token-env)"}`;
  }
  const excerpt = body.trim().slice(0, 160);
  return `HTTP ${response.status} ${response.statusText}${excerpt ? `: ${excerpt}` : ""}`;
}

export async function checkHttpServer(target: HttpTarget, options: { timeoutMs: number; expectName: string; tokenEnv?: string }): Promise<CheckResult> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let stage = "initialize";
  const base: Record<string, string> = { ...target.headers, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const post = (body: object, extra: Record<string, string> = {}) => fetch(target.url, { method: "POST", headers: { ...base, ...extra }, body: JSON.stringify(body), signal, redirect: "manual" });
  try {
    const initResponse = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: CHECK_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO } });
    if (!initResponse.ok) return { ok: false, reason: `initialize: ${httpProblem(initResponse, await initResponse.text(), options.tokenEnv)}` };
    const init = await responseIn(initResponse, 1);
    if (typeof init === "string") return { ok: false, reason: `initialize: ${init}` };
    if (init.error) return { ok: false, reason: `initialize failed: ${rpcError(init)}` };
    const info = readInitialize(init.result, options.expectName);
    if (typeof info === "string") return { ok: false, reason: info };

    const session: Record<string, string> = { "mcp-protocol-version": info.protocolVersion };
    const sessionId = initResponse.headers.get("mcp-session-id");
    if (sessionId) session["mcp-session-id"] = sessionId;
    stage = "notifications/initialized";
    const ack = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
    await ack.body?.cancel();
    if (!ack.ok) return { ok: false, reason: `notifications/initialized: ${httpProblem(ack, "", options.tokenEnv)}` };

    stage = "tools/list";
    const listResponse = await post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, session);
    if (!listResponse.ok) return { ok: false, reason: `tools/list: ${httpProblem(listResponse, await listResponse.text(), options.tokenEnv)}` };
    const list = await responseIn(listResponse, 2);
    if (typeof list === "string") return { ok: false, reason: `tools/list: ${list}` };
    if (list.error) return { ok: false, reason: `tools/list failed: ${rpcError(list)}` };
    const tools = readToolsList(list.result);
    if (typeof tools === "string") return { ok: false, reason: tools };

    // End the session politely; a server without sessions may answer 405, which is fine.
    if (sessionId) await fetch(target.url, { method: "DELETE", headers: { ...base, ...session }, signal }).then((r) => r.body?.cancel(), () => {});
    return { ok: true, ...info, tools };
  } catch (error) {
    if (signal.aborted) return { ok: false, reason: `no answer to ${stage} within ${options.timeoutMs / 1000} s` };
    const code = (error as { code?: string }).code;
    const why = code === "ConnectionRefused" || code === "ECONNREFUSED" ? "connection refused" : (error as Error).message;
    return { ok: false, reason: `cannot reach ${target.url}: ${why}` };
  }
}
