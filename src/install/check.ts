import { Client, ProtocolError, type StandardSchemaV1, type Transport } from "@modelcontextprotocol/client";
import { VERSION } from "../version.ts";

/**
 * What install asks of an entry over either transport: the SDK's client completes `initialize` and `tools/list`,
 * and skill-central must answer, within one deadline. The transports (stdio-check.ts, http-check.ts) put their
 * own failures into words; this names the step that failed.
 */

export type CheckResult =
  | { ok: true; serverName: string; serverVersion: string; protocolVersion: string; tools: number }
  | { ok: false; reason: string };

export type Stage = "initialize" | "notifications/initialized" | "tools/list";

export interface Conversation {
  transport: Transport;
  /** Why the conversation broke at `stage`, for an error that is not the server's JSON-RPC error. */
  explain(error: unknown, stage: Stage): string | Promise<string>;
  /** Stops waiting once the deadline passes: ends the process, aborts the fetch. */
  abandon(): void;
  /** Runs after a check that passed, before the client closes (ends the HTTP session). */
  finish?(): Promise<void>;
}

/** The check counts tools; it does not vet their schemas, as the SDK's `listTools()` would. */
const TOOLS_LIST: StandardSchemaV1<unknown, { tools: unknown[] }> = {
  "~standard": {
    version: 1,
    vendor: "skill-central",
    validate: (value) =>
      Array.isArray((value as { tools?: unknown } | null)?.tools)
        ? { value: value as { tools: unknown[] } }
        : { issues: [{ message: "the tools/list result has no tools array" }] },
  },
};

const seconds = (ms: number) => `${(ms / 1000).toLocaleString("en", { maximumFractionDigits: 3 })} s`;

export async function converse(
  talk: Conversation,
  options: { timeoutMs: number; expectName: string },
): Promise<CheckResult> {
  const client = new Client({ name: "skill-central-install", version: VERSION });
  client.onerror = () => {}; // what the server sends besides the answers is not the check's concern
  let stage: Stage = "initialize";
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    talk.abandon();
  }, options.timeoutMs);
  // The SDK's own request timeout (60 s by default) is set past the deadline, so the deadline decides.
  const wait = { timeout: options.timeoutMs + 1000 };
  try {
    await client.connect(talk.transport, wait);
    const server = client.getServerVersion()!;
    if (server.name !== options.expectName) {
      return { ok: false, reason: `a server named "${server.name}" answered, not ${options.expectName}` };
    }
    stage = "tools/list";
    // Asked even of a server that declares no tools: that is the failure worth reporting.
    const { tools } = await client.request({ method: "tools/list", params: {} }, TOOLS_LIST, wait);
    await talk.finish?.();
    const protocolVersion = client.getNegotiatedProtocolVersion() ?? "";
    return { ok: true, serverName: server.name, serverVersion: server.version, protocolVersion, tools: tools.length };
  } catch (error) {
    // Within connect, the server's identity is known once initialize has been answered.
    if (stage === "initialize" && client.getServerVersion()) stage = "notifications/initialized";
    if (timedOut) return { ok: false, reason: `no answer to ${stage} within ${seconds(options.timeoutMs)}` };
    if (error instanceof ProtocolError) {
      return { ok: false, reason: `${stage} failed: error ${error.code}: ${error.message}` };
    }
    return { ok: false, reason: await talk.explain(error, stage) };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}
