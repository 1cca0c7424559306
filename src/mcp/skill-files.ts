/**
 * The files and folders of published skills as MCP resources: `resources/read` of
 * `skill://<name>/<path>` and `resources/directory/read` of `skill://<name>[/<folder>]`.
 *
 * A request's URI is never turned into a disk path: it is taken apart into the skill's name and
 * a relative path, and that path is looked up among the files the skill publishes (the loader's
 * records). What is served is read through `readFolderFile`, which checks it is still the file
 * recorded, byte for byte; so a file outside the folder, a link, or a file added since the load
 * cannot be reached, whatever the URI says.
 */
import { DIRECTORY_MIME_TYPE, type DirectoryResource } from "@modelcontextprotocol/core/ext/skills";
import { ProtocolError, ProtocolErrorCode, type ReadResourceResult } from "@modelcontextprotocol/server";
import { quoted } from "../errors.ts";
import { PublishedFileUnavailable, publishedBytes } from "../registry/published-bytes.ts";
import { publishedSkill, type PublishedFile, type PublishedSkill } from "../registry/published-skills.ts";
import type { Registry } from "../registry/registry.ts";
import { SKILL_MD, SKILL_SCHEME, skillUri } from "../skill/skill-uri.ts";
import { isTextual, mimeTypeOf, OCTET_STREAM, PLAIN_TEXT } from "./file-types.ts";
import { paginate } from "./pagination.ts";
import { invalidUri, unknownResource } from "./resource-errors.ts";

/** A request's URI, taken apart: the skill's name and the path below the skill's root (`""`: the root). */
interface SkillTarget {
  name: string;
  path: string;
}

/** The URI of a folder of a published skill (`""`: the skill's root), with no trailing slash. */
export function skillFolderUri(name: string, path: string): string {
  return path === "" ? `${SKILL_SCHEME}${name}` : skillUri(name, path);
}

/**
 * `skill://<name>/<segment>/…` → name and path, or why it names nothing: a query or fragment, a
 * trailing or doubled slash, bad percent-encoding, and any segment that decodes to `.`, `..` or
 * something holding a `/` (percent-encoded traversal) are refused outright.
 */
function parseTarget(uri: string): SkillTarget | { refused: string } {
  const rest = uri.slice(SKILL_SCHEME.length);
  if (/[?#]/.test(rest)) return { refused: "a skill URI has no query or fragment" };
  const [name = "", ...segments] = rest.split("/");
  const path: string[] = [];
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { refused: "invalid percent-encoding" };
    }
    if (
      decoded === "" ||
      decoded === "." ||
      decoded === ".." ||
      decoded.includes("/") ||
      decoded.includes("\\") ||
      decoded.includes("\0")
    ) {
      return { refused: "a path inside a skill has no empty, '.' or '..' segments and no encoded slashes" };
    }
    path.push(decoded);
  }
  return { name, path: path.join("/") };
}

/** The published skill and path a URI names; anything else is -32602 with the reason. */
function locate(registry: Registry, uri: string): { skill: PublishedSkill; path: string } {
  const target = parseTarget(uri);
  if ("refused" in target) throw unknownResource(uri, target.refused);
  const skill = publishedSkill(registry, target.name);
  if (!skill)
    throw unknownResource(uri, `no skill named ${quoted(target.name)} is published; skills/list lists those that are`);
  return { skill, path: target.path };
}

/** The published skill whose `SKILL.md` is at `uri` (`skills/get`), or undefined. */
export function skillAtManifestUri(registry: Registry, uri: string): PublishedSkill | undefined {
  if (!uri.startsWith(SKILL_SCHEME)) return undefined;
  const target = parseTarget(uri);
  return "refused" in target || target.path !== SKILL_MD ? undefined : publishedSkill(registry, target.name);
}

/** Folder path → its direct children, per published skill (built on first use; the files array is shared across reloads). */
const folderIndexes = new WeakMap<readonly PublishedFile[], Map<string, DirectoryResource[]>>();

function folderIndex(skill: PublishedSkill): Map<string, DirectoryResource[]> {
  let index = folderIndexes.get(skill.files);
  if (index) return index;
  index = new Map([["", []]]);
  const name = skill.frontmatter.name;
  for (const file of skill.files) {
    const parts = file.path.split("/");
    for (let depth = 0; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join("/");
      let children = index.get(folder);
      if (!children) {
        children = [];
        index.set(folder, children);
      }
      if (depth === parts.length - 1) {
        const mimeType = mimeTypeOf(parts[depth]!);
        // A file of unknown kind has its type decided by its bytes, on read.
        children.push({
          uri: file.uri,
          name: parts[depth]!,
          ...(mimeType !== undefined && { mimeType }),
          size: file.size,
        });
        continue;
      }
      const sub = parts.slice(0, depth + 1).join("/");
      if (!index.has(sub)) {
        index.set(sub, []);
        children.push({ uri: skillFolderUri(name, sub), name: parts[depth]!, mimeType: DIRECTORY_MIME_TYPE });
      }
    }
  }
  for (const children of index.values()) children.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  folderIndexes.set(skill.files, index);
  return index;
}

/** `resources/directory/read`: the direct children of a skill's root or of a folder in it, paginated like `resources/list`. */
export function readSkillFolder(
  registry: Registry,
  uri: string,
  cursor: string | undefined,
  pageSize: number | undefined,
): { resources: DirectoryResource[]; nextCursor?: string } {
  if (!uri.startsWith(SKILL_SCHEME))
    throw invalidUri(`Not a directory resource: ${quoted(uri)} (the skills of this server are at skill://<name>)`, uri);
  const { skill, path } = locate(registry, uri);
  const children = folderIndex(skill).get(path);
  if (!children) {
    const why = skill.byPath.has(path) ? "it is a file: read it with resources/read" : "the skill has no such folder";
    throw invalidUri(`Not a directory resource: ${quoted(uri)} (${why})`, uri);
  }
  const page = paginate(
    children,
    (r) => r.uri,
    `resources/directory/read of ${skillFolderUri(skill.frontmatter.name, path)}`,
    cursor,
    pageSize,
  );
  return { resources: page.items, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
}

/** A published file's bytes (registry/published-bytes.ts), or an internal error telling the client what to do. */
export function bytesOf(skill: PublishedSkill, file: PublishedFile): Uint8Array {
  try {
    return publishedBytes(skill, file);
  } catch (error) {
    if (!(error instanceof PublishedFileUnavailable)) throw error;
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `${error.message}; call skills/get for the skill's current files`,
      { uri: file.uri },
    );
  }
}

/** Text only when decoding loses nothing, so that the client's UTF-8 of it is the very bytes the digest covers. */
function losslessText(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** `resources/read` of a skill file: text with its MIME type, or a base64 blob. */
export function readSkillFile(registry: Registry, uri: string): ReadResourceResult {
  const { skill, path } = locate(registry, uri);
  const file = skill.byPath.get(path);
  if (!file) {
    const why = folderIndex(skill).has(path)
      ? "it is a folder: list it with resources/directory/read"
      : "not a file of the skill; skills/get lists its files";
    throw unknownResource(uri, why);
  }
  const bytes = bytesOf(skill, file);
  const name = path.slice(path.lastIndexOf("/") + 1);
  const known = mimeTypeOf(name);
  const text = known === undefined || isTextual(known) ? losslessText(bytes) : undefined;
  // A file of unknown kind is text when it is UTF-8 without NULs; otherwise bytes.
  const mimeType = known ?? (text !== undefined && !text.includes("\0") ? PLAIN_TEXT : OCTET_STREAM);
  if (text !== undefined && mimeType !== OCTET_STREAM) return { contents: [{ uri: file.uri, mimeType, text }] };
  return { contents: [{ uri: file.uri, mimeType, blob: Buffer.from(bytes).toString("base64") }] };
}
