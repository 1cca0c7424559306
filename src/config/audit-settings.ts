/**
 * `audit:` in a config file (docs/audit.md): which verdicts keep a skill from being served
 * (`block`), which layers the gate judges (`layers`: only what `sync` fetches, or the local
 * folders too), and the skills a person has looked at and let through (`allow`), each pinned to
 * its exact content by digest, so a changed skill is judged again. The project's keys win over
 * the user's; `allow` lists add up (each is a person's decision about one version of one skill).
 */
import { type Digest, parseDigest } from "../storage/digest.ts";
import type { ReportProblem } from "./config-problem.ts";

/** The least severe finding that blocks a skill; `never`: findings are reported, nothing is refused. */
export type AuditBlock = "high" | "medium" | "never";
export const AUDIT_BLOCKS: readonly AuditBlock[] = ["high", "medium", "never"];

/** `remote`: git and url layers are judged at `sync`; `all`: local layers' blocked skills are not served either. */
export type AuditLayers = "remote" | "all";
export const AUDIT_LAYERS: readonly AuditLayers[] = ["remote", "all"];

export interface AuditAllow {
  skill: string;
  /** `sha256:` and 64 lowercase hex digits: what `audit --format json` reports for the skill. */
  digest: Digest;
  reason: string;
}

export interface AuditSettings {
  block: AuditBlock;
  layers: AuditLayers;
  allow: readonly AuditAllow[];
}

export const DEFAULT_AUDIT_SETTINGS: AuditSettings = Object.freeze({ block: "high", layers: "remote", allow: [] });

/** One file's `audit:` value, checked key by key; a bad key or entry is reported and left out. */
export function readAuditSettings(value: unknown, report: ReportProblem): Partial<AuditSettings> | undefined {
  // Every problem is placed at the `audit` key itself (path `[]`, relative to the block).
  const warn = (message: string, hint?: string) => report({ message, path: [], ...(hint !== undefined && { hint }) });
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    warn(
      `"audit" must be a mapping with block, layers and allow; ignored`,
      "e.g. audit: { block: high, layers: remote }",
    );
    return undefined;
  }
  const declared: { -readonly [K in keyof AuditSettings]?: AuditSettings[K] } = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === "block") {
      if ((AUDIT_BLOCKS as readonly unknown[]).includes(v)) declared.block = v as AuditBlock;
      else
        warn(
          `"audit.block" must be high, medium or never; ignored`,
          "high (the default) blocks a skill with a high finding",
        );
    } else if (key === "layers") {
      if ((AUDIT_LAYERS as readonly unknown[]).includes(v)) declared.layers = v as AuditLayers;
      else warn(`"audit.layers" must be remote or all; ignored`, "remote (the default): git and url layers, at sync");
    } else if (key === "allow") {
      declared.allow = readAllow(v, warn);
    } else {
      warn(`unknown key "audit.${key}" is ignored (known keys: block, layers, allow)`);
    }
  }
  return declared;
}

function readAllow(value: unknown, warn: (message: string, hint?: string) => void): AuditAllow[] {
  if (!Array.isArray(value)) {
    warn(`"audit.allow" must be a list of { skill, digest, reason }; ignored`);
    return [];
  }
  const allow: AuditAllow[] = [];
  for (const [i, entry] of value.entries()) {
    const e = entry as Record<string, unknown> | null;
    const ok =
      e !== null &&
      typeof e === "object" &&
      typeof e.skill === "string" &&
      parseDigest(e.digest) !== undefined &&
      typeof e.reason === "string" &&
      e.reason.trim() !== "";
    if (ok) allow.push({ skill: e.skill as string, digest: parseDigest(e.digest)!, reason: e.reason as string });
    else
      warn(
        `"audit.allow" entry ${i + 1} needs skill, digest (sha256:<64 hex>) and a reason; ignored`,
        "copy the digest from `skill-central audit --format json`",
      );
  }
  return allow;
}

/** The project's keys over the user's, over the defaults; `allow` entries of both. */
export function mergeAuditSettings(...layers: readonly (Partial<AuditSettings> | undefined)[]): AuditSettings {
  const merged = { ...DEFAULT_AUDIT_SETTINGS, allow: [] as AuditAllow[] };
  for (const layer of layers) {
    if (layer?.block !== undefined) merged.block = layer.block;
    if (layer?.layers !== undefined) merged.layers = layer.layers;
    if (layer?.allow) merged.allow.push(...layer.allow);
  }
  return merged;
}
