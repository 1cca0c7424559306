/**
 * `/.well-known/agent-skills/`: the Agent Skills well-known index of the skills this server
 * serves, and the artifacts it names (registry/well-known-index.ts), live: a reload makes a new
 * snapshot and so a new index, whose digests are of the bytes served from then on.
 *
 * The same gate as /mcp: the guard (Host, Origin, no credentials in the URL), then the bearer
 * token (static or OAuth) when authentication is configured, and the same per-caller view (a layer with `visibleTo` is
 * left out for a caller who may not see it). `GET` and `HEAD`; an `ETag` (the digest) with
 * `If-None-Match`; `Cache-Control: no-cache` (revalidate: the skills are live), `private` when
 * the answer depends on the caller's token.
 */
import { visibleRegistry } from "../../registry/visibility.ts";
import { wellKnownTrees } from "../../registry/well-known-index.ts";
import { CONTENT_TYPES, INDEX_FILE, WELL_KNOWN_PATH } from "../../sources/well-known/format.ts";
import { type Digest, digestHex } from "../../storage/digest.ts";
import type { RegistrySource } from "../registry-source.ts";
import { bytesOf } from "../skill-files.ts";
import type { Handler } from "./stages.ts";

export { WELL_KNOWN_PATH };

/**
 * The tree, with each entry's audit `_meta` once the snapshot's audit is done (started by the first
 * request here, run off the request: registry/audit-attestation.ts); until then, the tree without
 * it. The audit's rules are loaded on the first request here, not at start.
 */
let attestedTree: ReturnType<typeof wellKnownTrees> | undefined;
const pendingTree = wellKnownTrees(bytesOf);
const treeOf = async (registry: Parameters<ReturnType<typeof wellKnownTrees>>[0]) => {
  const audit = await import("../../registry/audit-attestation.ts");
  attestedTree ??= wellKnownTrees(bytesOf, audit.auditEntryMeta);
  return audit.attestationsReady(registry) ? attestedTree(registry) : pendingTree(registry);
};

function notFound(what: string): Response {
  return new Response(`Not found: ${what}\n`, {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-cache" },
  });
}

function artifactResponse(
  request: Request,
  bytes: Uint8Array,
  contentType: string,
  digest: Digest,
  shared: boolean,
): Response {
  const etag = `"${digestHex(digest)}"`;
  const headers = {
    "Content-Type": contentType,
    ETag: etag,
    "Cache-Control": shared ? "no-cache" : "private, no-cache",
    "Content-Length": String(bytes.length),
  };
  const match = request.headers.get("if-none-match");
  if (match?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag))
    return new Response(null, { status: 304, headers: { ETag: etag, "Cache-Control": headers["Cache-Control"] } });
  return new Response(request.method === "HEAD" ? null : bytes, { status: 200, headers });
}

/**
 * The handler of the paths under `/.well-known/agent-skills/`, behind the same gate as /mcp
 * (stages.ts), which has found the caller. `shared`: the server has no authentication, so every
 * caller gets the same answer.
 */
export const wellKnownRoute =
  (source: RegistrySource, shared: boolean): Handler =>
  async ({ request, url, exchange }) => {
    if (request.method !== "GET" && request.method !== "HEAD")
      return new Response("Method not allowed: GET or HEAD\n", { status: 405, headers: { Allow: "GET, HEAD" } });
    const registry = visibleRegistry(await source.current(), exchange.caller);
    const tree = await treeOf(registry);
    let path: string;
    try {
      path = decodeURIComponent(url.pathname.slice(WELL_KNOWN_PATH.length));
    } catch {
      return notFound("invalid percent-encoding");
    }
    if (path === INDEX_FILE)
      return artifactResponse(request, tree.index, CONTENT_TYPES.index, tree.indexDigest, shared);
    const artifact = tree.artifacts.get(path);
    if (artifact === undefined) return notFound(`${WELL_KNOWN_PATH}${INDEX_FILE} lists what is here`);
    return artifactResponse(request, artifact.bytes, artifact.contentType, artifact.digest, shared);
  };
