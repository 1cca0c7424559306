/**
 * `audit:` in a config file (docs/audit.md): which verdicts keep a skill from being served
 * (`block`), which layers the gate judges (`layers`: only what `sync` fetches, or the local
 * folders too), and the skills a person has looked at and let through (`allow`), each pinned to
 * its exact content by digest, so a changed skill is judged again.
 *
 * The gate is the user's protection, and a project's config is whatever came with a clone. So a
 * project may tighten the gate, never loosen it (as git ignores a repository's own attempt to
 * widen `safe.directory`). The floor is what the user's config sets, and where it is silent, the
 * default: the defaults are the user's choice as much as anything written, and a file the user
 * never read must not lower the protection a fresh install gives. Key by key:
 *
 * - `block`: never < high < medium (a stricter level blocks more). A project's level below the
 *   floor is ignored, with a warning naming the file and the key.
 * - `layers`: remote < all (more layers judged). A project's `remote` under the user's `all` is
 *   ignored, with the same warning.
 * - `allow`: a pin loosens, so a project's pin is bounded twice (AuditAllow.project). It lets
 *   through only a skill of a layer the project declares itself (or its `.skills/` folder): a
 *   project never vouches for the user's layers or the built-in one. And when the user's settings
 *   judge local layers too (`layers: all`), it lets through only what the user's own settings
 *   would not block: the user chose to take no local skill on its word, and a project pinning its
 *   own skill is a project vouching for itself. Under `layers: remote` (the default) a project's
 *   pins for its own layers count, git and url layers included: the user already serves the
 *   project's local skills unaudited, so a pin for its own fetched skill grants nothing the
 *   project could not have by copying that skill into its folder, and teams that review a vendor
 *   skill and pin it in the project's config keep working.
 *
 * The user's keys are theirs to set either way; user pins count for every layer.
 */
import { type Digest, DIGEST_FORM, DIGEST_PATTERN, parseDigest } from "../storage/digest.ts";
import type { ReportProblem } from "./config-problem.ts";
import { type BlockOf, NON_BLANK, readBlock } from "./config-schema.ts";
import { type MergeRules, mergeSettings } from "./merge-settings.ts";

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
    // `remote`: git and url layers are judged at `sync`; `all`: local layers' blocked skills are not served either.
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
            ...NON_BLANK,
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

/** A project config's `audit.allow` entry: where it was written, and what it may let through (see the header). */
export interface ProjectPin {
  /** The project's config file, for the warning when the entry is ignored. */
  file: string;
  /** The layers the project declares (its own): only their skills may this entry let through. */
  layers: readonly string[];
  /** Set when the user's settings judge every layer: a skill with a finding this severe is the user's to let through. */
  floor?: Exclude<AuditBlock, "never">;
}

/** One `audit.allow` entry, its digest (`sha256:` and 64 lowercase hex digits, as `audit --format json` reports it) parsed. */
export type AuditAllow = Omit<BlockOf<typeof AuditBlock.properties.allow.items>, "digest"> & {
  digest: Digest;
  /** Set for an entry of the project's config, which counts only within these bounds. */
  project?: ProjectPin;
};

/** The gate in effect: every key set, allow entries parsed (and a project's bounded). */
export type AuditSettings = Required<Omit<BlockOf<typeof AuditBlock>, "allow">> & { allow: readonly AuditAllow[] };

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

/**
 * The gate's floor as merge rules (see the header): `block` and `layers` loosest first, so a
 * project's value counts only at or above the user's (or the default); pins joined, a project's
 * bounded before they are (mergeAuditSettings).
 */
const AUDIT_RULES: MergeRules<AuditSettings> = {
  block: { tighter: ["never", "high", "medium"] },
  layers: { tighter: ["remote", "all"] },
  allow: "joined",
};

/** One config file's `audit:` as read, and the file it came from. */
export interface AuditSource {
  file: string;
  audit?: Partial<AuditSettings> | undefined;
}

/** A project's key the merge ignored because it would loosen the gate: the warning to show. */
export interface AuditLoosening {
  file: string;
  message: string;
  hint: string;
}

const LOOSENING_HINT =
  "a project's config may tighten the audit gate, never loosen it; only your user config (~/.skill-central/config.yaml) can";

/**
 * The user's keys over the defaults, then the project's where they are at least as tight (each
 * looser key reported and ignored); the user's pins, and the project's bounded to its own layers
 * (`projectLayers`) and, under the user's `layers: all`, to what the user's settings do not block.
 */
export function mergeAuditSettings(
  user?: AuditSource,
  project?: AuditSource & { projectLayers: readonly string[] },
  report: (loosening: AuditLoosening) => void = () => {},
): AuditSettings {
  const floor = mergeSettings(AUDIT_RULES, DEFAULT_AUDIT_SETTINGS, [user?.audit]);
  if (project === undefined) return floor;
  const judgesAll = floor.layers === "all" && floor.block !== "never";
  const bounds: ProjectPin = {
    file: project.file,
    layers: project.projectLayers,
    ...(judgesAll && { floor: floor.block as Exclude<AuditBlock, "never"> }),
  };
  const { allow, ...keys } = project.audit ?? {};
  const bounded = { ...keys, ...(allow !== undefined && { allow: allow.map((pin) => ({ ...pin, project: bounds })) }) };
  return mergeSettings(AUDIT_RULES, DEFAULT_AUDIT_SETTINGS, [user?.audit], {
    settings: bounded,
    looser: ({ key, wanted, floor: held }) =>
      report({
        file: project.file,
        message: `audit.${key}: ${wanted} would loosen the gate your user config sets (${key}: ${held}${user?.audit?.[key] === undefined ? ", by default" : ""}); ignored`,
        hint: LOOSENING_HINT,
      }),
  });
}
