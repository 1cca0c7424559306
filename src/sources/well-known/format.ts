/**
 * Facts of the Agent Skills well-known index (agentskills.io "Well-Known URI", discovery RFC
 * v0.2.0), shared by the publisher (src/registry/well-known-index.ts) and the consumer (sync).
 *
 *     /.well-known/agent-skills/index.json
 *     { "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
 *       "skills": [ { "name", "description", "type": "skill-md" | "archive", "url", "digest", "version"? } ] }
 */
import { SKILL_NAME_PATTERN } from "../../config/config-names.ts";
import type { Digest } from "../../storage/digest.ts";

export const WELL_KNOWN_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/** Where the index lives on a host. */
export const WELL_KNOWN_PATH = "/.well-known/agent-skills/";
export const INDEX_FILE = "index.json";

export type EntryType = "skill-md" | "archive";

export interface IndexEntry {
  name: string;
  description: string;
  type: EntryType;
  /** Relative (to the index URL), path-absolute or absolute. */
  url: string;
  /** Of the artifact's raw bytes. */
  digest: Digest;
  version?: string;
  /** Attestations about the entry (the publisher's audit: `dev.skill-central/audit`, docs/audit.md). */
  _meta?: Record<string, unknown>;
}

/** Agent Skills names: lowercase letters, digits and single hyphens, at most 64. */
export const NAME_PATTERN = SKILL_NAME_PATTERN;
export const SEMVER_PATTERN = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export const CONTENT_TYPES = {
  index: "application/json",
  "skill-md": "text/markdown; charset=utf-8",
  archive: "application/gzip",
  zip: "application/zip",
} as const;

/**
 * Where a signed index says when it was published (`publish --sign`): `_meta[PUBLISHED_KEY]`,
 * ISO 8601 to the second, inside the signed bytes, so a consumer can refuse an older index
 * (signed-index.ts). Other clients ignore it, as they ignore any field they do not know.
 */
export const PUBLISHED_KEY = "dev.skill-central/published";
const PUBLISHED_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The publication time an index's bytes carry, if they carry a well-formed one. */
export function indexPublished(index: Uint8Array): string | undefined {
  try {
    const data = JSON.parse(new TextDecoder().decode(index)) as { _meta?: Record<string, unknown> } | null;
    const value = data?._meta?.[PUBLISHED_KEY];
    return typeof value === "string" && PUBLISHED_FORM.test(value) && !Number.isNaN(Date.parse(value))
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

/** `index` (serialiseIndex's text) with its publication time; stamped on the index as published. */
export function stampIndex(index: Uint8Array, published: string): Uint8Array {
  const data = JSON.parse(new TextDecoder().decode(index)) as { $schema: unknown; skills: unknown };
  const stamped = { $schema: data.$schema, _meta: { [PUBLISHED_KEY]: published }, skills: data.skills };
  return new TextEncoder().encode(`${JSON.stringify(stamped, null, 2)}\n`);
}

/** The index's exact text: two-space JSON, entries sorted by name, fields in a fixed order. */
export function serialiseIndex(entries: readonly IndexEntry[]): string {
  const skills = [...entries]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, description, type, url, digest, version, _meta }) => ({
      name,
      description,
      type,
      url,
      digest,
      ...(version !== undefined && { version }),
      ...(_meta !== undefined && { _meta }),
    }));
  return `${JSON.stringify({ $schema: WELL_KNOWN_SCHEMA, skills }, null, 2)}\n`;
}
