/**
 * What install asks of an entry over either transport: the SDK's client completes `initialize`, then lists what a
 * client will see (every page of `prompts/list`, `tools/list` and `resources/list`; prompts and resources only when
 * the server declares them), and skill-central must answer, within one deadline. The counts are what install
 * reports: a check that said only "2 tools" hid the prompts, which are most of what skill-central serves. The
 * transports (stdio-check.ts, http-check.ts) put their own failures into words; this names the step that failed.
 */
import { Client, ProtocolError, type StandardSchemaV1, type Transport } from "@modelcontextprotocol/client";
import { VERSION } from "../version.ts";

/** What the client will see: a count per list; `prompts` and `resources` absent when the server does not offer them. */
export interface Listed {
  prompts?: number;
  tools: number;
  resources?: number;
}

export type CheckResult =
  | ({ ok: true; serverName: string; serverVersion: string; protocolVersion: string } & Listed)
  | { ok: false; reason: string };

type ListMethod = "prompts/list" | "tools/list" | "resources/list";
export type Stage = "initialize" | "notifications/initialized" | ListMethod;

export interface Conversation {
  transport: Transport;
  /** Why the conversation broke at `stage`, for an error that is not the server's JSON-RPC error. */
  explain(error: unknown, stage: Stage): string | Promise<string>;
  /** Stops waiting once the deadline passes: ends the process, aborts the fetch. */
  abandon(): void;
  /** Runs after a check that passed, before the client closes (ends the HTTP session). */
  finish?(): Promise<void>;
}

interface Page {
  items: unknown[];
  nextCursor?: unknown;
}

/** The check counts items; it does not vet their schemas, as the SDK's `listTools()` would. */
const pageOf = (method: ListMethod, key: string): StandardSchemaV1<unknown, Page> => ({
  "~standard": {
    version: 1,
    vendor: "skill-central",
    validate: (value) => {
      const items = (value as Record<string, unknown> | null)?.[key];
      return Array.isArray(items)
        ? { value: { items, nextCursor: (value as { nextCursor?: unknown }).nextCursor } }
        : { issues: [{ message: `the ${method} result has no ${key} array` }] };
    },
  },
});

/** A server that hands out cursors without end is not followed further (the deadline would end it anyway). */
const MAX_PAGES = 1000;

/** Every page of one list, as a client pages through it: the items counted. */
async function countAll(client: Client, method: ListMethod, key: string, wait: { timeout: number }): Promise<number> {
  const schema = pageOf(method, key);
  const seen = new Set<string>();
  let count = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const { items, nextCursor } = await client.request({ method, params }, schema, wait);
    count += items.length;
    // A cursor seen before would list the same page again.
    if (typeof nextCursor !== "string" || seen.has(nextCursor)) break;
    seen.add(nextCursor);
    cursor = nextCursor;
  }
  return count;
}

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
    const offers = client.getServerCapabilities() ?? {};
    const listed: Partial<Listed> = {};
    if (offers.prompts) {
      stage = "prompts/list";
      listed.prompts = await countAll(client, stage, "prompts", wait);
    }
    stage = "tools/list";
    // Asked even of a server that declares no tools: that is the failure worth reporting.
    const tools = await countAll(client, stage, "tools", wait);
    if (offers.resources) {
      stage = "resources/list";
      listed.resources = await countAll(client, stage, "resources", wait);
    }
    await talk.finish?.();
    const protocolVersion = client.getNegotiatedProtocolVersion() ?? "";
    return { ok: true, serverName: server.name, serverVersion: server.version, protocolVersion, ...listed, tools };
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
