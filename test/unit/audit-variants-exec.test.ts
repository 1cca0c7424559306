/**
 * Issue 48 items 5 and 7 for two attack classes, code execution and hidden text: every malicious
 * variant of test/fixtures/audit-variants/<class>/malicious is blocked at the default gate, and no
 * benign look-alike is (the corpus-wide harness, recall and public corpora, is
 * test/unit/audit-variants.test.ts's). Also: each rule of these classes catches its own documented
 * example, and the patterns their checks use pass the same linear-time proof as the rules'.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CODE_EXECUTION_PATTERNS } from "../../src/audit/code-execution.ts";
import { servedSkillsOf } from "../../src/audit/gate.ts";
import { HIDDEN_TEXT_PATTERNS } from "../../src/audit/hidden-text.ts";
import { RULES_BY_ID } from "../../src/audit/rules.ts";
import { scanText } from "../../src/audit/scan.ts";
import { auditFiles } from "../../src/audit/verdict.ts";
import { proveLinear } from "../helpers/linear-pattern.ts";

const VARIANTS = join(import.meta.dir, "..", "fixtures", "audit-variants");

function judged(dir: string) {
  return servedSkillsOf(dir).map((skill) => {
    const audit = auditFiles(skill.files.map((f) => ({ path: f.path, bytes: new Uint8Array(readFileSync(f.abs)) })));
    return { place: skill.place, verdict: audit.verdict, findings: audit.findings };
  });
}

for (const [cls, least] of [
  ["code-execution", 15],
  ["hidden-text", 15],
] as const) {
  describe(`the ${cls} variants`, () => {
    test(`every malicious variant (at least ${least}, folders and YAML skills) is blocked`, () => {
      const skills = judged(join(VARIANTS, cls, "malicious"));
      expect(skills.length).toBeGreaterThanOrEqual(least);
      expect(skills.some((s) => s.place.endsWith(".yaml"))).toBe(true);
      expect(skills.some((s) => s.place.endsWith("/"))).toBe(true);
      expect(skills.filter((s) => s.verdict !== "block").map((s) => s.place)).toEqual([]);
    });
    test("no benign look-alike is blocked", () => {
      const skills = judged(join(VARIANTS, cls, "benign"));
      expect(skills.length).toBeGreaterThanOrEqual(8);
      const blocked = skills.filter((s) => s.verdict === "block");
      expect(blocked.map((s) => `${s.place}: ${s.findings.map((f) => f.rule).join(", ")}`)).toEqual([]);
    });
  });
}

const CLASS_RULES = [
  "remote-code-pipe",
  "remote-code-instructions",
  "download-execute",
  "decode-execute",
  "package-from-url",
  "reverse-shell",
  "crypto-miner",
  "hidden-comment-instructions",
  "hidden-tag-characters",
  "bidi-control",
  "zero-width-character",
];

describe("each rule of these classes catches its documented example", () => {
  for (const id of CLASS_RULES)
    test(id, () => {
      const rule = RULES_BY_ID.get(id)!;
      const path = rule.kind === "prose" || id.startsWith("hidden-comment") ? "SKILL.md" : "scripts/run.sh";
      expect(scanText(path, `${rule.example}\n`).some((f) => f.rule === id && f.severity === rule.severity)).toBe(true);
    });
});

describe("the patterns the checks of these classes use are proven linear", () => {
  for (const p of [...CODE_EXECUTION_PATTERNS, ...HIDDEN_TEXT_PATTERNS])
    test(p.source.slice(0, 60), () => {
      expect(proveLinear(p).problems).toEqual([]);
    });
});
