import { SKILL_NAME_PATTERN } from "../../config/config-names.ts";
import type { Digest } from "../../storage/digest.ts";

/**
 * Facts of the Agent Skills well-known index (agentskills.io "Well-Known URI", discovery RFC
 * v0.2.0), shared by the publisher (src/registry/well-known-index.ts) and the consumer (sync).
 *
 *     /.well-known/agent-skills/index.json
 *     { "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
 *       "skills": [ { "name", "description", "type": "skill-md" | "archive", "url", "digest", "version"? } ] }
 */
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
