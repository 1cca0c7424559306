/**
 * `audit:` in a config file (docs/audit.md): which verdicts keep a skill from being served
 * (`block`), which layers the gate judges (`layers`: only what `sync` fetches, or the local
 * folders too), and the skills a person has looked at and let through (`allow`), each pinned to
 * its exact content by digest, so a changed skill is judged again. The project's keys win over
 * the user's; `allow` lists add up (each is a person's decision about one version of one skill).
 */
import { type Digest, DIGEST_FORM, DIGEST_PATTERN, parseDigest } from "../storage/digest.ts";
import type { ReportProblem } from "./config-problem.ts";
import { type BlockOf, readBlock } from "./config-schema.ts";

const ALLOW_HINT = "copy the digest from `skill-central audit --format json`";

/** `audit:` in a config file: `{ block, layers, allow: [{ skill, digest, reason }] }`. */
export const AuditBlock = {
  $id: "audit",
  type: "object",
  additionalProperties: false,
  properties: {
    block: {
      enum: ["high", "medium", "never"],
      errorMessage: "must be high, medium or never",
      hint: "high (the default) blocks a skill with a high finding",
    },
    layers: {
      enum: ["remote", "all"],
      errorMessage: "must be remote or all",
      hint: "remote (the default): git and url layers, at sync",
    },
    allow: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["skill", "digest", "reason"],
        properties: {
          skill: { type: "string", errorMessage: "must be a skill's name" },
          digest: {
            type: "string",
            pattern: DIGEST_PATTERN.source,
            errorMessage: `must be ${DIGEST_FORM}`,
            hint: ALLOW_HINT,
          },
          reason: {
            type: "string",
            pattern: "\\S",
            errorMessage: "must say why the skill is let through",
            hint: 'e.g. reason: "installer reviewed by security, 2026-12"',
          },
        },
        errorMessage: "must be a mapping { skill, digest, reason }",
        hint: `e.g. - { skill: pipe-shell, digest: "sha256:…", reason: "reviewed by security" }; ${ALLOW_HINT}`,
        noun: "entry",
      },
      errorMessage: "must be a list of { skill, digest, reason }",
      hint: ALLOW_HINT,
    },
  },
  errorMessage: "must be a mapping { block, layers, allow }",
  hint: "e.g. audit: { block: high, layers: remote }",
} as const;

/** The least severe finding that blocks a skill (`audit.block`); `never`: findings are reported, nothing is refused. */
export type AuditBlock = BlockOf<typeof AuditBlock.properties.block>;

/** `remote`: git and url layers are judged at `sync`; `all`: local layers' blocked skills are not served either. */
export type AuditLayers = BlockOf<typeof AuditBlock.properties.layers>;

/** One `audit.allow` entry, its digest (`sha256:` and 64 lowercase hex digits, as `audit --format json` reports it) parsed. */
export type AuditAllow = Omit<BlockOf<typeof AuditBlock.properties.allow.items>, "digest"> & { digest: Digest };

export interface AuditSettings {
  block: AuditBlock;
  layers: AuditLayers;
  allow: readonly AuditAllow[];
}

export const DEFAULT_AUDIT_SETTINGS: AuditSettings = Object.freeze({ block: "high", layers: "remote", allow: [] });

/** One file's `audit:` value; a wrong key or allow entry is reported at its path and left out. */
export function readAuditSettings(value: unknown, report: ReportProblem): Partial<AuditSettings> | undefined {
  const block = readBlock(AuditBlock, value, report, { key: "audit" });
  if (block === undefined) return undefined;
  const { allow, ...keys } = block;
  if (allow === undefined) return keys;
  // The schema's pattern is parseDigest's: every entry's digest parses.
  const pinned = allow.flatMap(({ skill, digest, reason }) => {
    const parsed = parseDigest(digest);
    return parsed === undefined ? [] : [{ skill, digest: parsed, reason }];
  });
  return { ...keys, allow: pinned };
}

/** The project's keys over the user's, over the defaults; `allow` entries of both. */
export function mergeAuditSettings(...layers: readonly (Partial<AuditSettings> | undefined)[]): AuditSettings {
  const merged = { ...DEFAULT_AUDIT_SETTINGS, allow: [] as AuditAllow[] };
  for (const layer of layers) {
    if (layer?.block !== undefined) merged.block = layer.block;
    if (layer?.layers !== undefined) merged.layers = layer.layers;
    if (layer?.allow) for (const allowed of layer.allow) merged.allow.push(allowed);
  }
  return merged;
}
