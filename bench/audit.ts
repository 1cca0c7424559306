#!/usr/bin/env bun
/**
 * `skill-central audit` on the public Agent Skills folder corpus (bench/lib/folder-corpus.ts:
 * anthropics/skills copied to 1,200 folders, ~14,200 files): wall time cold (a fresh HOME: no
 * start-up index, no audit cache) and cached (the same HOME again), for `--format text` and
 * `--format json` (which works out every folder's `.tar.gz` digest). Issue 39's targets: under
 * 5 s cold, under 1 s cached, on a 2-core machine; run it on a quiet one. It also says how many
 * skills the JSON report has blocked and warned, and exits 1, naming them, if any is blocked:
 * public skills are the false-block check of issue 48 (none may be blocked).
 *
 *     bun bench/audit.ts [--size 1200] [--runs 3] [--skills-from DIR]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { visibleLine } from "../src/visible-text.ts";
import { REPO_ROOT } from "./lib/build.ts";
import { ensureFolderCorpus, publicSkills } from "./lib/folder-corpus.ts";
import { median } from "./lib/stats.ts";

const { values } = parseArgs({
  options: { size: { type: "string" }, runs: { type: "string" }, "skills-from": { type: "string" } },
});
const size = Number(values.size ?? 1200);
const runs = Number(values.runs ?? 3);
const root = join(REPO_ROOT, "bench", ".corpus");
const corpus = ensureFolderCorpus(root, size, publicSkills(root, values["skills-from"]));
const entry = join(REPO_ROOT, "src", "cli.ts");

/** A skill of `--format json`'s report, as far as the bench reads it. */
interface AuditedSkill {
  id: string;
  verdict: "pass" | "warn" | "block";
  findings: { rule: string; severity: string; file: string; line: number; column: number }[];
}

/**
 * One run in `home`; the shipped forms' start-up index is on, as for the bench's source target.
 * `--fail-on never`: a blocked skill is counted from the JSON report, not told by the exit status.
 */
function once(home: string, format: string): { ms: number; summary: string; skills?: AuditedSkill[] } {
  const started = performance.now();
  const run = Bun.spawnSync([process.execPath, entry, "audit", "--format", format, "--fail-on", "never"], {
    cwd: corpus.dir,
    env: { PATH: process.env.PATH ?? "", HOME: home, SKILL_CENTRAL_CACHE: "on", NO_COLOR: "1" },
    stdout: format === "json" ? "pipe" : "ignore",
    stderr: "pipe",
  });
  const ms = performance.now() - started;
  if (run.exitCode !== 0) throw new Error(`audit exited ${run.exitCode}: ${run.stderr.toString().slice(-400)}`);
  const summary = run.stderr.toString().trim().split("\n").at(-1) ?? "";
  if (format !== "json") return { ms, summary };
  return { ms, summary, skills: (JSON.parse(run.stdout!.toString()) as { skills: AuditedSkill[] }).skills };
}

let blocked: AuditedSkill[] = [];
for (const format of ["text", "json"]) {
  const cold: number[] = [];
  const cached: number[] = [];
  let summary = "";
  let verdicts = "";
  for (let i = 0; i < runs; i++) {
    const home = mkdtempSync(join(tmpdir(), "skill-central-audit-bench-"));
    try {
      const first = once(home, format);
      cold.push(first.ms);
      summary = first.summary;
      cached.push(once(home, format).ms);
      if (first.skills) {
        blocked = first.skills.filter((s) => s.verdict === "block");
        const warned = first.skills.filter((s) => s.verdict === "warn").length;
        verdicts = `; JSON report: ${first.skills.length} skills, ${blocked.length} blocked, ${warned} warned`;
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
  const s = (ms: number[]) => `${(median(ms) / 1000).toFixed(2)} s`;
  console.log(
    `${size} folders (${corpus.files} files), --format ${format}: cold ${s(cold)}, cached ${s(cached)} (median of ${runs}; load average ${loadavg()[0]!.toFixed(1)}) — ${summary}${verdicts}`,
  );
}

if (blocked.length > 0) {
  const shown = blocked.slice(0, 20).map((s) => {
    const high = s.findings.filter((f) => f.severity === "high");
    return `  ${visibleLine(s.id)}: ${high.map((f) => `${f.rule} ${visibleLine(f.file)}:${f.line}:${f.column}`).join(", ")}`;
  });
  const more = blocked.length > shown.length ? `\n  … and ${blocked.length - shown.length} more` : "";
  console.error(
    `FAIL: ${blocked.length} public skills are blocked at the default gate (a false block; none may be):\n${shown.join("\n")}${more}`,
  );
  process.exitCode = 1;
}
