/**
 * Whose skills a check judges (docs/cli.md#whose-skills-a-check-judges). A project's CI should fail
 * on what the project can fix, and on nothing else: findings about the FORM of a skill the project
 * does not own (a description's length or vagueness, two descriptions competing, a long body,
 * unknown fields: the lint of FORM_RULES) are notes for the built-in layer and for git and url
 * layers, which are verified copies of someone else's commit or index (fixed upstream, where that
 * repository's own CI runs `validate` on it as a folder). A layer that is a folder of this machine
 * (the project's, or the user's own) is owned: a skill copied into it is the project's now, and
 * every finding counts. Everything else about a skill not owned keeps its severity: security and
 * access findings, and a file the server cannot serve at all.
 *
 * Then `checks.ignore` (src/config/checks-settings.ts): each entry silences one rule for one skill
 * or one layer; an entry that silences nothing is reported (stale), as eslint reports an unused
 * disable comment; an entry for a security or access rule is refused.
 */
import { dirname, sep } from "node:path";
import type { CheckIgnore } from "../../config/checks-settings.ts";
import { ownedLayer } from "../../config/owned-layer.ts";
import type { LayerSpec } from "../../config/resolve-config.ts";
import type { Diagnostic } from "../../diagnostics.ts";
import type { SkillRecord } from "../../load/record.ts";

/** Rules about a skill's form: a note, not a fault, for a skill the project does not own. */
const FORM_RULES: ReadonlySet<string> = new Set([
  "description-too-long",
  "vague-description",
  "competing-skills",
  "body-too-long",
  "name-folder-mismatch",
  "unknown-field",
  "ignored-field",
  "unused-argument",
  "long-tool-id",
  "version-not-text",
  "unknown-schema-keyword",
  "unquoted-colon",
  "required-not-askable",
  "tags-compose-with-nothing",
  "left-out-of-skill",
]);

/** `--strict`'s letter-of-the-specification rules are all about form. */
const isFormRule = (code: string) => FORM_RULES.has(code) || code.startsWith("spec-");

/** Rules `checks.ignore` may not silence: what keeps a skill from being served for safety, and who may change it. */
function isSecurityRule(code: string): boolean {
  return /^(audit-|git-|well-known-|layer-unsigned|lockfile|signature)/.test(code);
}

interface Place {
  skill?: string;
  layer?: string;
}

/** Which skill and layer a finding's file belongs to: a skill file, a file of a skill folder, or a layer's folder. */
function placer(
  records: readonly SkillRecord[],
  layers: readonly LayerSpec[],
): (file: string | undefined) => Place | undefined {
  const byFile = new Map<string, Place>();
  const byFolder = new Map<string, Place>();
  for (const r of records) {
    const place = { ...(r.skill && { skill: r.skill.id }), layer: r.layer.name };
    byFile.set(r.path, place);
    if (r.skill?.format === "skill-md") byFolder.set(dirname(r.path), place);
  }
  // Innermost first: a layer inside another's folder owns its own files.
  const dirs = layers.filter((l) => l.dir !== "").sort((a, b) => b.dir.length - a.dir.length);
  return (file) => {
    if (file === undefined) return undefined;
    const exact = byFile.get(file);
    if (exact) return exact;
    for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
      const folder = byFolder.get(dir);
      if (folder) return folder;
    }
    const layer = dirs.find((l) => file === l.dir || file.startsWith(l.dir + sep));
    return layer && { layer: layer.name };
  };
}

/** A `checks.ignore` entry, and how many findings it silenced in this check. */
export interface Silenced {
  entry: CheckIgnore;
  count: number;
}

export interface Judged {
  problems: Diagnostic[];
  silenced: Silenced[];
}

export interface JudgeInput {
  records: readonly SkillRecord[];
  layers: readonly LayerSpec[];
  ignore: readonly CheckIgnore[];
  /** Whether `--strict`'s specification rules ran: an entry for one of them is stale only then. */
  strict: boolean;
}

const entryName = (e: CheckIgnore) => (e.skill !== undefined ? `skill "${e.skill}"` : `layer "${e.layer}"`);

/** The findings as the project's checkers judge them: form findings of skills not owned as notes, `checks.ignore` applied. */
export function judgeFindings(problems: readonly Diagnostic[], input: JudgeInput): Judged {
  const placeOf = placer(input.records, input.layers);
  const owned = new Map(input.layers.map((l) => [l.name, ownedLayer(l)]));
  const refused = input.ignore.filter((e) => isSecurityRule(e.rule));
  const entries = input.ignore.filter((e) => !isSecurityRule(e.rule));
  const counts = new Map<CheckIgnore, number>(entries.map((e) => [e, 0]));
  const kept: Diagnostic[] = [];
  for (const d of problems) {
    const place = placeOf(d.file);
    const entry =
      place &&
      entries.find(
        (e) => e.rule === d.code && (e.skill !== undefined ? e.skill === place.skill : e.layer === place.layer),
      );
    if (entry) {
      counts.set(entry, counts.get(entry)! + 1);
      continue;
    }
    const notOwned = place?.layer !== undefined && owned.get(place.layer) === false;
    kept.push(
      notOwned && d.severity !== "note" && isFormRule(d.code)
        ? { ...d, severity: "note", message: `${d.message} (layer "${place.layer}" is not this project's to fix)` }
        : d,
    );
  }
  for (const e of refused)
    kept.push({
      severity: "warning",
      code: "checks-ignore-refused",
      file: e.file,
      ...(e.position && { position: e.position }),
      message: `checks.ignore cannot silence "${e.rule}" for ${entryName(e)}: security and access findings always count; ignored`,
      hint: "a skill reviewed by a person is pinned by its digest in audit.allow (docs/audit.md)",
    });
  for (const [e, count] of counts)
    if (count === 0 && (input.strict || !e.rule.startsWith("spec-")))
      kept.push({
        severity: "warning",
        code: "checks-ignore-stale",
        file: e.file,
        ...(e.position && { position: e.position }),
        message: `checks.ignore entry for "${e.rule}" on ${entryName(e)} silences nothing: no such finding now`,
        hint: "remove the entry (the finding it was for is gone), or correct its rule, skill or layer",
      });
  return { problems: kept, silenced: [...counts].map(([entry, count]) => ({ entry, count })) };
}
