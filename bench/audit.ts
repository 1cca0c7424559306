#!/usr/bin/env bun
/**
 * `skill-central audit` on the public Agent Skills folder corpus (bench/lib/folder-corpus.ts:
 * anthropics/skills copied to 1,200 folders, ~14,200 files): wall time cold (a fresh HOME: no
 * start-up index, no audit cache) and cached (the same HOME again), for `--format text` and
 * `--format json` (which works out every folder's `.tar.gz` digest). Issue 39's targets: under
 * 5 s cold, under 1 s cached, on a 2-core machine; run it on a quiet one.
 *
 *     bun bench/audit.ts [--size 1200] [--runs 3] [--skills-from DIR]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
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

/** One run in `home`; the shipped forms' start-up index is on, as for the bench's source target. */
function once(home: string, format: string): { ms: number; summary: string } {
  const started = performance.now();
  const run = Bun.spawnSync([process.execPath, entry, "audit", "--format", format], {
    cwd: corpus.dir,
    env: { PATH: process.env.PATH ?? "", HOME: home, SKILL_CENTRAL_CACHE: "on", NO_COLOR: "1" },
    stdout: "ignore",
    stderr: "pipe",
  });
  const ms = performance.now() - started;
  if (run.exitCode !== 0) throw new Error(`audit exited ${run.exitCode}: ${run.stderr.toString().slice(-400)}`);
  return { ms, summary: run.stderr.toString().trim().split("\n").at(-1) ?? "" };
}

for (const format of ["text", "json"]) {
  const cold: number[] = [];
  const cached: number[] = [];
  let summary = "";
  for (let i = 0; i < runs; i++) {
    const home = mkdtempSync(join(tmpdir(), "skill-central-audit-bench-"));
    try {
      const first = once(home, format);
      cold.push(first.ms);
      summary = first.summary;
      cached.push(once(home, format).ms);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
  const s = (ms: number[]) => `${(median(ms) / 1000).toFixed(2)} s`;
  console.log(
    `${size} folders (${corpus.files} files), --format ${format}: cold ${s(cold)}, cached ${s(cached)} (median of ${runs}; load average ${loadavg()[0]!.toFixed(1)}) — ${summary}`,
  );
}
