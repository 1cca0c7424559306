/**
 * The variant corpus's judge (issue 48 item 7), shared by its test (test/unit/audit-variants.test.ts)
 * and the figures script (script/audit-variants.ts), so the figures printed for a closing note are
 * the ones the test asserts. A corpus is `<root>/<class>/{malicious,benign}/`, each side a layer
 * folder whose skills are variants: each is listed the way the gate lists a layer copy
 * (`servedSkillsOf`: the loader's discovery and file list) and judged over those files
 * (`auditFiles`) at the default gate (`audit.block: high`, config/audit-settings.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { servedSkillsOf } from "../../src/audit/gate.ts";
import type { Finding } from "../../src/audit/scan.ts";
import { anyReaches, auditFiles } from "../../src/audit/verdict.ts";
import { DEFAULT_AUDIT_SETTINGS } from "../../src/config/audit-settings.ts";
import { visibleLine } from "../../src/visible-text.ts";

export const VARIANTS_ROOT = join(import.meta.dir, "..", "fixtures", "audit-variants");

/** What the test holds the corpus to (docs/audit.md, "The variant corpus"). */
export const TARGETS = { recall: 0.95, falseBlocks: 0, minMaliciousPerClass: 10 } as const;

export type Side = "malicious" | "benign";
const SIDES: readonly Side[] = ["malicious", "benign"];

export interface Variant {
  class: string;
  side: Side;
  /** Where the skill is in its side's folder: `release-notes/` (a folder) or `x.yaml` (a skill file). */
  place: string;
  blocked: boolean;
  findings: Finding[];
}

export interface SideFigures {
  total: number;
  blocked: number;
}

export interface ClassFigures {
  name: string;
  /** Absent: the class has no such folder (a benign-only class such as `look-alikes`). */
  malicious?: SideFigures;
  benign?: SideFigures;
}

export interface CorpusFigures {
  root: string;
  block: string;
  classes: ClassFigures[];
  variants: Variant[];
  overall: { malicious: number; blocked: number; recall: number; benign: number; falseBlocks: number };
}

/** A layer folder's skills, each judged over the files the loader serves for it: blocked at `block`, and its findings. */
export function judgeLayer(
  dir: string,
  block = DEFAULT_AUDIT_SETTINGS.block,
): { place: string; blocked: boolean; findings: Finding[] }[] {
  return servedSkillsOf(dir).map((skill) => {
    const audit = auditFiles(skill.files.map((f) => ({ path: f.path, bytes: new Uint8Array(readFileSync(f.abs)) })));
    return { place: skill.place, blocked: anyReaches(audit.findings, block), findings: audit.findings };
  });
}

/** Every class folder under `root`, whatever classes exist: each side's skills judged at `audit.block`. */
export function judgeCorpus(root = VARIANTS_ROOT, block = DEFAULT_AUDIT_SETTINGS.block): CorpusFigures {
  const names = existsSync(root)
    ? readdirSync(root)
        .filter((name) => statSync(join(root, name)).isDirectory())
        .sort()
    : [];
  const classes: ClassFigures[] = [];
  const variants: Variant[] = [];
  for (const name of names) {
    const figures: ClassFigures = { name };
    for (const side of SIDES) {
      const dir = join(root, name, side);
      if (!existsSync(dir)) continue;
      const judged = judgeLayer(dir, block).map((skill): Variant => ({ class: name, side, ...skill }));
      variants.push(...judged);
      figures[side] = { total: judged.length, blocked: judged.filter((v) => v.blocked).length };
    }
    classes.push(figures);
  }
  const malicious = variants.filter((v) => v.side === "malicious");
  const benign = variants.filter((v) => v.side === "benign");
  const blocked = malicious.filter((v) => v.blocked).length;
  return {
    root,
    block,
    classes,
    variants,
    overall: {
      malicious: malicious.length,
      blocked,
      recall: malicious.length === 0 ? 1 : blocked / malicious.length,
      benign: benign.length,
      falseBlocks: benign.filter((v) => v.blocked).length,
    },
  };
}

const percent = (part: number, whole: number) => (whole === 0 ? "-" : `${((100 * part) / whole).toFixed(1)}%`);

/** The figures as a table to print: per class, then overall. */
export function figuresTable(figures: CorpusFigures): string {
  const rows = [["class", "malicious blocked", "recall", "benign", "false blocks"]];
  for (const c of figures.classes)
    rows.push([
      visibleLine(c.name),
      c.malicious ? `${c.malicious.blocked}/${c.malicious.total}` : "-",
      c.malicious ? percent(c.malicious.blocked, c.malicious.total) : "-",
      c.benign ? String(c.benign.total) : "-",
      c.benign ? String(c.benign.blocked) : "-",
    ]);
  const o = figures.overall;
  rows.push([
    "overall",
    `${o.blocked}/${o.malicious}`,
    percent(o.blocked, o.malicious),
    String(o.benign),
    String(o.falseBlocks),
  ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [`variant corpus at audit.block: ${figures.block}`, line(rows[0]!), ...rows.slice(1).map(line)].join("\n");
}

/** One variant and why it was judged so: each finding that is not low, else every finding (or none). */
function described(v: Variant): string {
  const shown = v.findings.some((f) => f.severity !== "low")
    ? v.findings.filter((f) => f.severity !== "low")
    : v.findings;
  const lines = shown.map(
    (f) => `    ${f.severity} ${f.rule} ${f.file}:${f.line}:${f.column} ${visibleLine(f.message)}`,
  );
  return [
    `  ${visibleLine(`${v.class}/${v.side}/${v.place}`)}`,
    ...(lines.length > 0 ? lines : ["    (no finding)"]),
  ].join("\n");
}

/** The malicious variants not blocked and the benign ones blocked, each with its findings (empty: none). */
export function misjudged(figures: CorpusFigures): string[] {
  const out: string[] = [];
  const missed = figures.variants.filter((v) => v.side === "malicious" && !v.blocked);
  if (missed.length > 0)
    out.push(`malicious variants not blocked (${missed.length}):\n${missed.map(described).join("\n")}`);
  const falseBlocks = figures.variants.filter((v) => v.side === "benign" && v.blocked);
  if (falseBlocks.length > 0)
    out.push(`benign variants blocked (${falseBlocks.length}):\n${falseBlocks.map(described).join("\n")}`);
  return out;
}

/**
 * What keeps the corpus from meeting TARGETS (empty: it meets them): recall under target, a benign
 * variant blocked, a class whose malicious side has fewer than ten variants. Each missed or falsely
 * blocked variant is named, with its findings, after them.
 */
export function shortfalls(figures: CorpusFigures): string[] {
  const out: string[] = [];
  const { overall } = figures;
  if (overall.recall < TARGETS.recall)
    out.push(
      `recall ${percent(overall.blocked, overall.malicious)} (${overall.blocked}/${overall.malicious}) is under ${TARGETS.recall * 100}%`,
    );
  if (overall.falseBlocks > TARGETS.falseBlocks)
    out.push(`${overall.falseBlocks} benign variants blocked (none may be)`);
  for (const c of figures.classes)
    if (c.malicious && c.malicious.total < TARGETS.minMaliciousPerClass)
      out.push(
        `class ${c.name} has ${c.malicious.total} malicious variants, fewer than ${TARGETS.minMaliciousPerClass}`,
      );
  return out.length > 0 ? [...out, ...misjudged(figures)] : out;
}
