/**
 * An index as a client reads it (agentskills.io "Well-Known URI"): refused whole when its
 * `$schema` is absent or not the one this version knows; unknown fields ignored; an entry of an
 * unknown `type`, or one whose fields are wrong, skipped with a note naming it and why. Each
 * entry's `url` is resolved against the index's own URL (RFC 3986 §5).
 */
import { DIGEST_FORM, parseDigest } from "../../storage/digest.ts";
import { type EntryType, type IndexEntry, NAME_PATTERN, WELL_KNOWN_SCHEMA } from "./format.ts";
import { isWebUrl } from "./fetch.ts";

export interface ResolvedEntry extends IndexEntry {
  /** `url`, resolved: absolute, http(s). */
  href: string;
}

export interface ParsedIndex {
  entries: Map<string, ResolvedEntry>;
  /** Entries left out, each naming the skill and the reason. */
  skipped: Map<string, string>;
}

export class IndexRefused extends Error {
  override readonly name = "IndexRefused";
}

const TYPES: readonly EntryType[] = ["skill-md", "archive"];

function entryProblem(e: Record<string, unknown>): string | undefined {
  if (typeof e.description !== "string") return "it has no description";
  if (!TYPES.includes(e.type as EntryType)) return `its type ${JSON.stringify(e.type)} is not known`;
  if (typeof e.url !== "string" || e.url === "") return "it has no url";
  if (!parseDigest(e.digest)) return `its digest is not ${DIGEST_FORM}`;
  if (e.version !== undefined && typeof e.version !== "string") return "its version is not a string";
  return undefined;
}

/** Parses the index fetched from `indexUrl`; throws `IndexRefused` when it cannot be used at all. */
export function parseIndex(bytes: Uint8Array, indexUrl: string): ParsedIndex {
  let data: { $schema?: unknown; skills?: unknown };
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as typeof data;
  } catch {
    throw new IndexRefused("the index is not valid JSON");
  }
  if (!data || typeof data !== "object" || Array.isArray(data))
    throw new IndexRefused("the index is not a JSON object");
  if (data.$schema === undefined)
    throw new IndexRefused(`the index has no "$schema" (expected ${WELL_KNOWN_SCHEMA}); refused`);
  if (data.$schema !== WELL_KNOWN_SCHEMA)
    throw new IndexRefused(
      `the index's "$schema" ${JSON.stringify(data.$schema)} is not one this version reads; refused`,
    );
  if (!Array.isArray(data.skills)) throw new IndexRefused('the index has no "skills" list');
  const parsed: ParsedIndex = { entries: new Map(), skipped: new Map() };
  for (const [i, value] of (data.skills as unknown[]).entries()) {
    const e = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
    const name = typeof e.name === "string" && NAME_PATTERN.test(e.name) && e.name.length <= 64 ? e.name : undefined;
    if (name === undefined) {
      parsed.skipped.set(`#${i + 1}`, "its name is not a skill name (lowercase letters, digits, hyphens)");
      continue;
    }
    if (parsed.entries.has(name)) throw new IndexRefused(`the index lists "${name}" twice`);
    const problem = entryProblem(e);
    let href: string | undefined;
    try {
      href = problem === undefined ? new URL(e.url as string, indexUrl).href : undefined;
    } catch {
      href = undefined;
    }
    const why =
      problem ?? (href === undefined || !isWebUrl(href) ? "its url is not an http:// or https:// URL" : undefined);
    if (why !== undefined) {
      parsed.skipped.set(name, why);
      continue;
    }
    const entry = e as unknown as IndexEntry;
    parsed.entries.set(name, {
      name,
      description: entry.description,
      type: entry.type,
      url: entry.url,
      digest: entry.digest,
      ...(entry.version !== undefined && { version: entry.version }),
      href: href!,
    });
  }
  return parsed;
}
