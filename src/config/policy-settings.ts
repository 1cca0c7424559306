/**
 * `policy:` (docs/governance.md): what an admin requires of every layer, whoever declared it.
 * `sources`, the patterns a git or url layer's URL must match, and `approvers`, the OpenSSH
 * allowed_signers file of the keys whose admin actions count (the admin log is verified against
 * it; `skill-central log`):
 *
 *   policy:
 *     sources: [https://github.com/acme/*, https://skills.acme.dev]
 *     approvers: ./approvers   # relative to the config
 *
 * It fails closed: a `policy` or `sources` that cannot be read refuses every git and url layer
 * (an error at the key) rather than serving what the admin meant to keep out; a pattern that
 * cannot be read is left out (an error), so it allows nothing. Tighten-only across configs: each
 * config's list is kept as its own (`SourceList`) and a layer must match every list that is set,
 * so a project's config can narrow the user's list and never widen it. That is why this block is
 * not merged by merge-settings.ts: an intersection of pattern lists is not a list of patterns.
 */
import type { ReportProblem } from "./config-problem.ts";
import { NON_BLANK, readBlock } from "./config-schema.ts";
import { parseSourcePattern, type SourcePattern } from "./source-patterns.ts";

export interface PolicySettings {
  /** Absent: no list from this config. Empty: every git and url layer refused. */
  sources?: SourcePattern[];
  /** The approvers' allowed_signers file, absolute. */
  approvers?: string;
  /** Which layers' skills are served only at an approved digest. */
  approval?: ApprovalScope;
  /** An approval counts only by a key other than the one that signed the commit or index. */
  twoPerson?: boolean;
}

export type ApprovalScope = "off" | "remote" | "all";
/** Strictness order: a project's config may move up it, never down (tighten-only). */
export const APPROVAL_SCOPES: readonly ApprovalScope[] = ["off", "remote", "all"];

/** One config's `policy.sources`, where it was set: a layer must match every one in effect. */
export interface SourceList {
  file: string;
  patterns: readonly SourcePattern[];
}

const HINT = "policy: { sources: [https://github.com/acme/*, https://skills.acme.dev], approvers: ./approvers }";
const REFUSES_ALL = "every git and url layer is refused until it reads";

/** `policy:` in a config file. */
export const PolicyBlock = {
  $id: "policy",
  type: "object",
  additionalProperties: false,
  properties: {
    sources: {
      type: "array",
      items: { ...NON_BLANK, errorMessage: "must be a URL pattern", hint: HINT, dropSeverity: "error" },
      errorMessage: "must be a list of URL patterns",
      hint: HINT,
      consequence: REFUSES_ALL,
      dropSeverity: "error",
    },
    approval: {
      type: "string",
      enum: ["off", "remote", "all"],
      errorMessage: "must be off, remote or all",
      hint: "policy: { approval: remote } serves a git or url layer's skill only at a digest an approver signed",
    },
    twoPerson: {
      type: "boolean",
      errorMessage: "must be true or false",
      hint: "policy: { twoPerson: true }: the approver must differ from the signer of the commit or index",
    },
    approvers: {
      ...NON_BLANK,
      errorMessage: "must be the path of an OpenSSH allowed_signers file",
      hint: "policy: { approvers: ./approvers } (lines as ssh-keygen -Y verify reads them)",
    },
  },
  errorMessage: "must be a mapping with sources: [patterns] and approvers: FILE",
  hint: HINT,
  consequence: REFUSES_ALL,
  dropSeverity: "error",
} as const;

/** The `policy:` key of one config file; each problem reported, failing closed. */
export function readPolicySettings(
  value: unknown,
  report: ReportProblem,
  resolvePath: (path: string) => string,
): PolicySettings | undefined {
  if (value === null || value === undefined) return undefined;
  const block = readBlock(PolicyBlock, value, report, { key: "policy" });
  if (block === undefined) return { sources: [] };
  const approvers = {
    ...(block.approvers !== undefined && { approvers: resolvePath(block.approvers.trim()) }),
    ...(block.approval !== undefined && { approval: block.approval }),
    ...(block.twoPerson !== undefined && { twoPerson: block.twoPerson }),
  };
  const declared = typeof value === "object" && Object.hasOwn(value as object, "sources");
  if (block.sources === undefined) return declared ? { sources: [], ...approvers } : approvers;
  const sources: SourcePattern[] = [];
  for (const [i, text] of block.sources.entries()) {
    const pattern = parseSourcePattern(text);
    if ("problem" in pattern) {
      report({
        message: `"policy.sources" entry ${i + 1} ${pattern.problem}; it allows nothing`,
        path: ["sources", i],
        hint: HINT,
        severity: "error",
      });
    } else sources.push(pattern);
  }
  return { sources, ...approvers };
}
