/**
 * skill-central's public API, for skill authors who test their skills with `bun test`.
 * It loads skills exactly as the server does (same config files, layers, resolution, rendering),
 * so what passes here is what an IDE gets.
 *
 * @example
 * import { test, expect } from "bun:test";
 * import { openSkills } from "skill-central";
 * const skills = await openSkills({ cwd: import.meta.dir });
 * test("commit message", async () => {
 *   expect(await skills.callTool("commit-conventions", { type: "fix", summary: "x" })).toBe("fix: x");
 * });
 */
import type { Diagnostic, Severity, SourcePosition } from "./diagnostics.ts";
import { SkillCentralError, type ErrorCode } from "./errors.ts";
import { invokePrompt, invokeTool, type Invocation } from "./invoke/invoke.ts";
import { runExamples as runInlineExamples, type ExampleResult } from "./examples/run.ts";
import type { FailureKind } from "./examples/judge.ts";
import { allDiagnostics, loadSkills, locatorsOf } from "./load/load-skills.ts";
import {
  resolutionView,
  skillView,
  type CandidateView,
  type ResolutionView,
  type SkillView,
} from "./registry/describe.ts";
import type { Candidate } from "./registry/registry.ts";
import { COMPOSE_PROMPT_NAME } from "./invoke/compose.ts";
import type { SkillType } from "./skill/skill.ts";
import { normaliseTag } from "./skill/tags.ts";
import { modelMayUse } from "./invoke/load-skill.ts";
import { searchIndexOf, searchSkills } from "./registry/search.ts";

export { SkillCentralError };
export type {
  CandidateView,
  Diagnostic,
  ErrorCode,
  ExampleResult,
  FailureKind,
  ResolutionView,
  Severity,
  SkillType,
  SkillView,
  SourcePosition,
};

export interface OpenSkillsOptions {
  /** Project root: where `skill-central.yaml` and `.skills/` are looked for (e.g. `import.meta.dir`). */
  cwd: string;
  /** Home folder for `~/.skill-central/config.yaml` and `~` in layer paths. Defaults to the user's. */
  home?: string;
  /** `false` leaves the built-in skills out, like `--no-builtin`; otherwise the configs decide. */
  builtin?: boolean;
}

/** Narrows `list()`. Every given field must match. */
export interface ListFilter {
  type?: SkillType;
  /** Case-insensitive, like tags in skill files. */
  tag?: string;
  /** The layer the skill is served from. */
  layer?: string;
}

/** Narrows `find()`. */
export interface FindOptions {
  /** Normalised like tags in skill files; a skill must carry every one. */
  tags?: readonly string[];
  /** At most this many (default 10, as `find_skills`). */
  limit?: number;
}

/** A served skill with its provenance: every candidate for its id, winner first. */
export interface SkillDetails extends SkillView {
  chain: CandidateView[];
}

/** The skills of one project, loaded once. Every call answers from that one snapshot. */
export interface Skills {
  /**
   * What loading found worth saying (broken files, unknown config keys, shadowing ties, conflicts),
   * each with its file and position.
   *
   * @example
   * expect(skills.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
   */
  readonly diagnostics: readonly Diagnostic[];

  /**
   * The served skills, sorted by id.
   *
   * @example
   * skills.list({ type: "tool" }).map((s) => s.id); // ["branch-name", "commit-conventions", …]
   */
  list(filter?: ListFilter): SkillView[];

  /**
   * What the `find_skills` catalog tool answers a model for `query`: the best matches first
   * (alphabetical without a query), never a skill only people may run. For checking that a
   * skill is found by the words people will use.
   *
   * @example
   * expect(skills.find("blameless write-up after an outage")[0]?.id).toBe("incident-postmortem");
   */
  find(query?: string, options?: FindOptions): SkillView[];

  /**
   * A served skill with its resolution chain, or `undefined` for an id that is not served.
   *
   * @example
   * skills.get("review-pr")?.chain.map((c) => `${c.layer}: ${c.status}`); // ["project: effective", "builtin: shadowed"]
   */
  get(id: string): SkillDetails | undefined;

  /**
   * Every candidate for an id, served or not (an id withdrawn by a conflict has `served: false`).
   */
  resolution(id: string): ResolutionView | undefined;

  /**
   * The text `prompts/get` returns for a prompt skill (or for `skills:compose` with a `tags`
   * argument). Throws `SkillCentralError` (`unknown-prompt`, `missing-argument`, …).
   *
   * @example
   * expect(await skills.renderPrompt("explain-change", { change: "+ retries: 5" })).toContain("+ retries: 5");
   */
  renderPrompt(id: string, args?: Readonly<Record<string, string>>): Promise<string>;

  /**
   * The text `tools/call` returns for a tool skill. Arguments the tool's schema rejects throw a
   * `SkillCentralError` with code `invalid-arguments`, one message per problem in `problems`
   * (the message is those lines, exactly what the IDE's model would read).
   *
   * @example
   * await expect(skills.callTool("commit-conventions", { type: "fix" })).rejects.toThrow('Missing required argument: "summary"');
   */
  callTool(id: string, args?: Readonly<Record<string, unknown>>): Promise<string>;

  /**
   * What `skills:compose` returns for these tags: every prompt skill sharing one, lowest priority
   * first. Other arguments reach every template. Throws `SkillCentralError` (`no-skills-for-tags`).
   *
   * @example
   * expect(await skills.compose(["review", "security"])).toContain("## security-review");
   */
  compose(tags: string | readonly string[], args?: Readonly<Record<string, string>>): Promise<string>;

  /**
   * Runs the inline `examples:` of the served skills (or of the given ids), as `skill-central
   * test` does. A result with `pass: false` says why (`reason`, `expected`, `actual`) and where.
   *
   * @example
   * expect((await skills.runExamples()).filter((r) => !r.pass)).toEqual([]);
   */
  runExamples(ids?: readonly string[]): Promise<ExampleResult[]>;
}

function textOf(invocation: Invocation): string {
  if (invocation.ok) return invocation.text;
  throw invocation.error;
}

/**
 * Loads a project's skills the way the server does and returns an object to query, render and
 * test them with.
 *
 * @example
 * const skills = await openSkills({ cwd: import.meta.dir, builtin: false });
 */
export async function openSkills(options: OpenSkillsOptions): Promise<Skills> {
  const loaded = await loadSkills({
    cwd: options.cwd,
    ...(options.home !== undefined && { home: options.home }),
    ...(options.builtin === false && { builtin: false }),
    keepLocators: true,
  });
  const { registry, display } = loaded;
  const diagnostics = allDiagnostics(loaded).map((d) => (d.file === undefined ? d : { ...d, file: display(d.file) }));
  const served = (): readonly Candidate[] => registry.served();

  return {
    diagnostics,
    list(filter = {}) {
      const tag = filter.tag === undefined ? undefined : normaliseTag(filter.tag);
      return served()
        .filter(
          (c) =>
            (filter.type === undefined || c.skill.type === filter.type) &&
            (tag === undefined || c.skill.tags.includes(tag)) &&
            (filter.layer === undefined || c.layer.name === filter.layer),
        )
        .map((c) => skillView(c, true));
    },
    find(query = "", options = {}) {
      const tags = (options.tags ?? []).map(normaliseTag).filter((t) => t !== "");
      const { hits } = searchSkills(searchIndexOf(registry), {
        query,
        tags,
        limit: options.limit ?? 10,
        filter: modelMayUse,
      });
      return hits.map((h) => skillView(h.candidate, true));
    },
    get(id) {
      const candidate = registry.get(id);
      const resolution = registry.resolution(id);
      if (!candidate || !resolution) return undefined;
      return { ...skillView(candidate, true), chain: resolutionView(resolution).chain };
    },
    resolution(id) {
      const resolution = registry.resolution(id);
      return resolution && resolutionView(resolution);
    },
    async renderPrompt(id, args = {}) {
      return textOf(invokePrompt(registry, id, args));
    },
    async callTool(id, args = {}) {
      return textOf(await invokeTool(registry, id, args));
    },
    async compose(tags, args = {}) {
      const list = typeof tags === "string" ? tags : tags.join(",");
      return textOf(invokePrompt(registry, COMPOSE_PROMPT_NAME, { ...args, tags: list }));
    },
    async runExamples(ids) {
      let candidates = served();
      if (ids !== undefined) {
        const unknown = ids.filter((id) => !registry.get(id));
        if (unknown.length > 0) throw new SkillCentralError("unknown-skill", `Unknown skill: ${unknown.join(", ")}`);
        candidates = [...new Set(ids)].map((id) => registry.get(id)!);
      }
      return runInlineExamples(registry, candidates, { locate: locatorsOf(loaded) });
    },
  };
}
