#!/usr/bin/env bun
/**
 * The variant corpus's figures for a closing note (docs/audit.md, "The variant corpus"): per
 * class, malicious variants blocked and recall, benign variants and false blocks, and overall, at
 * the default gate, judged by the same code as test/unit/audit-variants.test.ts
 * (test/helpers/variant-corpus.ts). Exits 1 when the corpus misses a target the test holds.
 *
 *     bun script/audit-variants.ts [--json] [--root DIR]
 */
import { parseArgs } from "node:util";
import {
  figuresTable,
  judgeCorpus,
  misjudged,
  shortfalls,
  TARGETS,
  VARIANTS_ROOT,
} from "../test/helpers/variant-corpus.ts";

const { values } = parseArgs({ options: { json: { type: "boolean" }, root: { type: "string" } } });
const figures = judgeCorpus(values.root ?? VARIANTS_ROOT);
const short = shortfalls(figures);

if (values.json) {
  const summary = (v: (typeof figures.variants)[number]) => ({
    class: v.class,
    side: v.side,
    place: v.place,
    rules: [...new Set(v.findings.filter((f) => f.severity !== "low").map((f) => `${f.rule}:${f.severity}`))],
  });
  const json = {
    block: figures.block,
    targets: TARGETS,
    classes: figures.classes,
    overall: figures.overall,
    missed: figures.variants.filter((v) => v.side === "malicious" && !v.blocked).map(summary),
    falseBlocks: figures.variants.filter((v) => v.side === "benign" && v.blocked).map(summary),
    shortfalls: short.filter((s) => !s.includes("\n")),
  };
  console.log(JSON.stringify(json, null, 2));
} else {
  console.log(figuresTable(figures));
  for (const paragraph of misjudged(figures)) console.log(`\n${paragraph}`);
  if (short.length > 0) console.error(`\nshort of the targets:\n${short.filter((s) => !s.includes("\n")).join("\n")}`);
}
process.exitCode = short.length > 0 ? 1 : 0;
