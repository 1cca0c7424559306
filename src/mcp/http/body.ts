/** The body stage of /mcp: a POST's JSON-RPC message read within its limit and parsed, with its method for the log. */
import { readRequestBody } from "@modelcontextprotocol/server";
import { SKILL_MD, SKILL_SCHEME } from "../../skill/skill-uri.ts";
import { FIND_SKILLS, LOAD_SKILL, RUN_SKILL_TOOL } from "../catalog/mode.ts";
import { classifyIncoming } from "../incoming.ts";
import { errorResponse } from "./responses.ts";

/** Request bodies above this are refused with 413 (the SDK's own default). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * What the body stage makes of a request: for a POST, the parsed JSON-RPC message and its
 * method (for the access log); for other methods nothing (no body is read); or the refusal.
 */
export type Body = { ok: true; parsedBody?: unknown; rpc?: string; skill?: string } | { ok: false; response: Response };

/**
 * The third stage of a request to /mcp: a POST body within `MAX_BODY_BYTES`, JSON, and one
 * JSON-RPC 2.0 message (batches and unusable ids are refused here, as over stdio).
 */
export async function readBody(request: Request): Promise<Body> {
  if (request.method !== "POST") return { ok: true };
  const body = await readRequestBody(request, MAX_BODY_BYTES);
  if (body.tooLarge)
    return refuse(413, -32600, `Request too large: bodies are limited to ${MAX_BODY_BYTES / (1024 * 1024)} MiB`);
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(body.text);
  } catch {
    return refuse(400, -32700, "Parse error: the body is not JSON");
  }
  const incoming = classifyIncoming(parsedBody);
  if (incoming.kind === "refuse") {
    return {
      ok: false,
      response: Response.json(
        { jsonrpc: "2.0", id: incoming.id, error: { code: -32600, message: incoming.message } },
        { status: 400 },
      ),
    };
  }
  if (incoming.kind === "skip") return refuse(400, -32600, "Invalid Request: not a JSON-RPC 2.0 message");
  if (!("method" in incoming.message)) return { ok: true, parsedBody };
  const { method, params } = incoming.message;
  const skill = namedSkill(method, params);
  return { ok: true, parsedBody, rpc: method, ...(skill !== undefined && { skill }) };
}

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
const MANIFEST_URI = new RegExp(`^${SKILL_SCHEME}([^/]+)/${SKILL_MD.replace(".", "\\.")}$`);

/**
 * The skill a request names, for the access log, as the client wrote it (whether a skill has
 * that id is the registry's business): `prompts/get` and `tools/call` by `name` (the catalog's
 * `load_skill` and `run_skill_tool` by their `name` argument), `skills/get` by its URI's name.
 */
export function namedSkill(method: string, params: unknown): string | undefined {
  let named: unknown;
  if (method === "prompts/get") named = field(params, "name");
  else if (method === "tools/call") {
    const tool = field(params, "name");
    named = tool === LOAD_SKILL || tool === RUN_SKILL_TOOL ? field(field(params, "arguments"), "name") : tool;
    if (tool === FIND_SKILLS) named = undefined;
  } else if (method === "skills/get") {
    const uri = field(params, "uri");
    named = typeof uri === "string" ? (MANIFEST_URI.exec(uri)?.[1] ?? uri) : undefined;
  }
  return typeof named === "string" ? named : undefined;
}

const refuse = (status: number, code: number, message: string): Body => ({
  ok: false,
  response: errorResponse(status, code, message),
});
