/** One load as the page's JSON: the skill rows, the problems grouped by file, a skill's page and its form's fields. */
import { readFileSync } from "node:fs";
import { dirname, sep } from "node:path";
import { ownedLayer } from "../config/owned-layer.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { ExampleResult } from "../examples/run.ts";
import type { LoadResult } from "../load/load-skills.ts";
import type { SkillRecord } from "../load/record.ts";
import { folderFilesOf, originView } from "../registry/describe.ts";
import type { Candidate, Provenance } from "../registry/registry.ts";
import {
  fieldOfPromptArgument,
  fieldOfProperty,
  propertyOf,
  requiredNames,
  type FormField,
} from "../skill/form-fields.ts";
import { isPlainObject } from "../skill/json-schema.ts";
import { type Skill, skillKind } from "../skill/skill.ts";
import type { BoardEvals } from "./evals.ts";
import type { ChainEntry, ExampleRow, Field, ProblemGroup, SkillAudit, SkillPage, SkillRow } from "./wire.ts";

/** What `validate` finds in a load: every finding, and every inline example run. */
export interface Findings {
  problems: readonly Diagnostic[];
  examples: readonly ExampleResult[];
  /**
   * Each served skill's audit verdict and findings, by id (`skill-central audit`); absent, or
   * without a skill's id, when the board has none. The list's filter and a skill's Audit use it.
   */
  audits?: ReadonlyMap<string, SkillAudit>;
}

/** One load as the board shows it: the registry the server serves, the load's records and what validate finds. */
export interface BoardLoad {
  result: LoadResult;
  findings: Findings;
  /** The eval workspace's results, read with the load and again when the workspace changes (evals.ts). */
  evals?: BoardEvals;
}

/** The line the skill's id is written on (1 when the load kept no locator, or the id is implied). */
function lineOf(record: SkillRecord | undefined): number {
  return record?.locate?.(["id"])?.line ?? record?.locate?.(["name"])?.line ?? 1;
}

export function recordsByPath(result: LoadResult): Map<string, SkillRecord> {
  return new Map(result.records.map((r) => [r.path, r]));
}

export function skillRows(
  result: LoadResult,
  records: ReadonlyMap<string, SkillRecord>,
  audits?: ReadonlyMap<string, SkillAudit>,
): SkillRow[] {
  return result.registry.served().map((c) => ({
    id: c.skill.id,
    type: c.skill.type,
    kind: skillKind(c.skill),
    description: c.skill.description,
    tags: [...c.skill.tags],
    layer: c.layer.name,
    file: c.source,
    line: lineOf(records.get(c.path)),
    shadows: (result.registry.resolution(c.skill.id)?.chain.length ?? 1) - 1,
    ...(audits?.has(c.skill.id) && { audit: audits.get(c.skill.id)!.verdict }),
    ...(records.get(c.path)?.servedStamp && { changed: records.get(c.path)!.servedStamp!.mtimeMs }),
  }));
}

/**
 * Whether a finding's file is the project's to fix: the file of a skill of an owned layer, or a
 * file under an owned layer's folder (innermost layer first), or a file of no layer (a config file).
 */
export function ownsFile(result: LoadResult): (file: string | undefined) => boolean {
  const owned = new Map(result.config.layers.map((l) => [l.name, ownedLayer(l)]));
  const byFile = new Map(result.records.map((r) => [r.path, r.layer.name]));
  const dirs = result.config.layers.filter((l) => l.dir !== "").sort((a, b) => b.dir.length - a.dir.length);
  return (file) => {
    if (file === undefined) return true;
    const layer = byFile.get(file) ?? dirs.find((l) => file === l.dir || file.startsWith(l.dir + sep))?.name;
    return layer === undefined || owned.get(layer) !== false;
  };
}

/** Findings grouped by file, files in order, findings about no file first. */
export function problemGroups(
  problems: readonly Diagnostic[],
  display: (path: string) => string,
  owns: (file: string | undefined) => boolean,
): ProblemGroup[] {
  const groups = new Map<string, ProblemGroup>();
  for (const d of problems) {
    const file = d.file === undefined ? "" : display(d.file);
    let group = groups.get(file);
    if (!group) {
      group = { file, owned: owns(d.file), problems: [] };
      groups.set(file, group);
    }
    group.problems.push({
      ...(d.position && { line: d.position.line, column: d.position.column }),
      severity: d.severity,
      rule: d.code,
      message: d.message,
      ...(d.hint !== undefined && { hint: d.hint }),
    });
  }
  return [...groups.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Why the winner wins over `loser`: the rule of docs/layers.md that decided. */
function whyShadowed(winner: Candidate, loser: Candidate): string {
  if (winner.layer.priority !== loser.layer.priority)
    return `layer "${winner.layer.name}" has priority ${winner.layer.priority}, above ${loser.layer.priority}`;
  if (winner.layer.name !== loser.layer.name)
    return `same priority ${winner.layer.priority}: layer "${winner.layer.name}" is declared later`;
  return `same layer: ${winner.source} sorts first`;
}

function chainEntry({ candidate, status }: Provenance): ChainEntry {
  const base = {
    layer: candidate.layer.name,
    priority: candidate.layer.priority,
    file: candidate.source,
    status: status.kind,
  } as const;
  if (status.kind === "shadowed")
    return { ...base, why: `shadowed by ${status.by.source}: ${whyShadowed(status.by, candidate)}` };
  if (status.kind === "conflicted")
    return { ...base, why: `conflicts with ${status.with.map((c) => c.source).join(", ")}` };
  return base;
}

/** The values a field offers to pick from, when it is a choice. */
function choicesOf(field: FormField): string[] | undefined {
  if ("enum" in field) return field.enum;
  if ("oneOf" in field) return field.oneOf.map((o) => o.const);
  return undefined;
}

function toolField(name: string, property: unknown, required: boolean): Field {
  const field = fieldOfProperty(property);
  const described =
    isPlainObject(property) && typeof property.description === "string" ? property.description : undefined;
  if (field === undefined)
    return { name, required, input: "json", ...(described !== undefined && { description: described }) };
  const choices = choicesOf(field);
  return {
    name,
    required,
    input: field.type === "string" ? "text" : field.type,
    ...(typeof field.description === "string" && { description: field.description }),
    ...(choices && { choices }),
    ...(field.default !== undefined && { default: field.default }),
  };
}

/** The form for a skill: a tool's input schema (what tools/call validates), or a prompt's arguments. */
export function fieldsOf(skill: Skill): Field[] {
  const schema = skill.inputSchema;
  if (skill.type === "tool" && schema) {
    const properties = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
    const required = new Set(requiredNames(schema));
    return properties.map((name) => toolField(name, propertyOf(schema, name), required.has(name)));
  }
  return skill.arguments.map((a) => {
    const choices = choicesOf(fieldOfPromptArgument(a));
    return {
      name: a.name,
      required: a.required,
      input: "text" as const,
      ...(a.description !== undefined && { description: a.description }),
      ...(choices && { choices }),
    };
  });
}

/** The file as written; a file that cannot be read now shows the template the server holds. */
function sourceOf(candidate: Candidate): string {
  try {
    return readFileSync(candidate.path, "utf8");
  } catch {
    try {
      return candidate.content.read().template ?? "";
    } catch {
      return "";
    }
  }
}

/** A prompt's text as a Markdown document (a folder skill's SKILL.md body is its prompt); tools have none. */
function bodyOf(candidate: Candidate): string | undefined {
  if (candidate.skill.type !== "prompt") return undefined;
  try {
    return candidate.content.read().template;
  } catch {
    return undefined;
  }
}

function exampleRows(examples: readonly ExampleResult[], candidate: Candidate): ExampleRow[] {
  return examples
    .filter((e) => e.id === candidate.skill.id && dirname(e.path) === dirname(candidate.path))
    .map((e) => ({
      number: e.number,
      pass: e.pass,
      arguments: e.arguments,
      ...(e.reason !== undefined && { reason: e.reason }),
    }));
}

export function skillPage(
  load: BoardLoad,
  records: ReadonlyMap<string, SkillRecord>,
  id: string,
): SkillPage | undefined {
  const registry = load.result.registry;
  const candidate = registry.get(id);
  const resolution = registry.resolution(id);
  if (!candidate || !resolution) return undefined;
  const { skill } = candidate;
  const origin = originView(candidate.layer);
  const body = bodyOf(candidate);
  const audit = load.findings.audits?.get(id);
  return {
    id,
    type: skill.type,
    kind: skillKind(skill),
    ...(skill.title !== undefined && { title: skill.title }),
    description: skill.description,
    tags: [...skill.tags],
    layer: candidate.layer.name,
    file: candidate.source,
    line: lineOf(records.get(candidate.path)),
    source: sourceOf(candidate),
    chain: resolution.chain.map(chainEntry),
    fields: fieldsOf(skill),
    examples: exampleRows(load.findings.examples, candidate),
    // Sizes and digests are worked out on first use (a folder costs its SKILL.md at start): a skill's page is one.
    ...(candidate.files && {
      files: folderFilesOf(candidate).map(({ path, size, sha256 }) => ({ path, size, sha256 })),
    }),
    ...(origin && { origin }),
    ...(body !== undefined && { body }),
    ...(audit && { audit }),
    ...(candidate.approval && { approval: { ...candidate.approval } }),
  };
}
