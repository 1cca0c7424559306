/**
 * Which skill a request used, and how it ended, told to the server's `onUse` hook (usage history,
 * metrics). Handlers call it once a request is answered (not while a form is out), for ids the
 * registry serves only: an unknown name is never recorded, so what is kept stays bounded by the
 * skills. A call refused before it ran (its arguments missing or invalid) is told as `refused`:
 * it is not a use, and reports count it apart. Each use carries the digest of the skill as
 * served, worked out once per loaded skill. A deprecated skill's notice is carried by each result
 * that used it, once.
 */
import type { CallToolResult, Server, ServerContext } from "@modelcontextprotocol/server";
import { SkillCentralError } from "../errors.ts";
import type { Candidate, Registry } from "../registry/registry.ts";
import { deprecationNotice } from "../skill/skill.ts";
import { sha256Hex } from "../storage/digest.ts";
import type { UseOutcome } from "../storage/usage-report.ts";
import { requestClient } from "./catalog/mode.ts";
import type { OnSkillUse, SkillUseVia } from "./feature.ts";

/** The key of the deprecation notice in a result's `_meta`. */
export const DEPRECATED_META_KEY = "dev.skill-central/deprecated";

/** Tells `onUse` of one use of `skill`, when the registry serves it. */
export function reportUse(
  onUse: OnSkillUse | undefined,
  server: Server,
  ctx: ServerContext | undefined,
  registry: Registry,
  skill: string,
  via: SkillUseVia,
  outcome: UseOutcome,
): void {
  if (onUse === undefined) return;
  const candidate = registry.get(skill);
  if (candidate === undefined) return;
  const client = requestClient(server, ctx).name;
  onUse({
    skill,
    layer: candidate.layer.name,
    via,
    outcome,
    digest: servedDigest(candidate),
    ...(client !== undefined && { client }),
  });
}

/** Each loaded skill's digest, once: a reload makes new candidates, so an edit gets a new one. */
const DIGESTS = new WeakMap<Candidate, string>();

/** `sha256:` of what the skill serves (its definition and template): which version of it a use used. */
function servedDigest(candidate: Candidate): string {
  let digest = DIGESTS.get(candidate);
  if (digest === undefined) {
    let template: unknown;
    try {
      template = candidate.content.read().template;
    } catch {
      // Content no longer to be had: the definition alone names the version.
    }
    digest = `sha256:${sha256Hex(JSON.stringify([candidate.skill, template ?? null]) ?? "")}`;
    DIGESTS.set(candidate, digest);
  }
  return digest;
}

/** Errors that refuse a call before it runs: its arguments missing, invalid or too large. */
const REFUSALS: ReadonlySet<string> = new Set(["missing-argument", "invalid-arguments", "invalid-params"]);

/** How a call that threw ended: refused before running (its arguments), else an error. */
export function thrownOutcome(error: unknown): UseOutcome {
  return error instanceof SkillCentralError && REFUSALS.has(error.code) ? "refused" : "error";
}

/** The deprecation notices of `skills` that are deprecated, by id. */
export function deprecationsOf(registry: Registry, skills: readonly string[]): Record<string, string> {
  const notices: Record<string, string> = {};
  for (const id of skills) {
    const deprecated = registry.get(id)?.skill.deprecated;
    if (deprecated !== undefined) notices[id] = deprecationNotice(id, deprecated);
  }
  return notices;
}

/** A tool result that used `skill`, with its deprecation notice added once (as the last text, and in `_meta`). */
export function withDeprecation(result: CallToolResult, registry: Registry, skill: string | undefined): CallToolResult {
  if (skill === undefined) return result;
  const notices = deprecationsOf(registry, [skill]);
  const notice = notices[skill];
  if (notice === undefined || result._meta?.[DEPRECATED_META_KEY] !== undefined) return result;
  return {
    ...result,
    content: [...result.content, { type: "text", text: `Note: ${notice}` }],
    _meta: { ...result._meta, [DEPRECATED_META_KEY]: notices },
  };
}
