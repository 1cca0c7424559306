#!/usr/bin/env bun
/**
 * What a git layer costs: `sync` (fetch + materialise) and, on the path to the first answer,
 * resolving the layer to its verified copy, with the seal (stamps only) and without (every byte
 * hashed). Each resolve runs in a fresh process, as a server start does.
 *
 *     bun bench/git-layer.ts [files=1000] [runs=5]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CacheEntry } from "../src/sources/cache-entry.ts";
import { syncLayers } from "../src/sources/sync.ts";
import { makeRemote, skill } from "../test/helpers/git-remote.ts";
import { median } from "./lib/stats.ts";

const files = Number(process.argv[2] ?? 1000);
const runs = Number(process.argv[3] ?? 5);
const root = mkdtempSync(join(tmpdir(), "bench-git-layer-"));
const cwd = join(root, "project");
const home = join(root, "home");
delete process.env.XDG_CACHE_HOME;
delete process.env.SKILL_CENTRAL_CACHE_DIR;

/** Milliseconds `resolveLayers` takes in a new process (imports excluded). */
function resolveInFreshProcess(): number {
  const script = `const { resolveLayers } = await import(${JSON.stringify(join(import.meta.dir, "../src/sources/resolve-layers.ts"))});
const t = performance.now();
const c = await resolveLayers({ cwd: ${JSON.stringify(cwd)}, home: ${JSON.stringify(home)} }, () => {});
if (!c.layers[0].provenance) throw new Error("not served");
console.log(performance.now() - t);`;
  const proc = Bun.spawnSync([process.execPath, "-e", script], {
    env: { PATH: process.env.PATH ?? "", HOME: home },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (proc.exitCode !== 0) throw new Error(proc.stderr.toString());
  return Number(proc.stdout.toString().trim());
}

try {
  const remote = makeRemote(root);
  remote.bulkCommit(
    Object.fromEntries(Array.from({ length: files }, (_, i) => [`skills/s${i}.yaml`, skill(`s${i}`, "x".repeat(300))])),
  );
  await Bun.write(
    join(cwd, "skill-central.yaml"),
    `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, path: skills }\n`,
  );

  const started = performance.now();
  const report = await syncLayers({ cwd, home, mode: "sync" }, () => {});
  const syncMs = performance.now() - started;
  if (!report.ok) throw new Error(JSON.stringify(report.layers));

  const sealed = Array.from({ length: runs }, resolveInFreshProcess);
  // Without a seal: every byte hashed (a copy moved from another disk, or a stale seal).
  const entry = new CacheEntry(remote.url, home);
  const commit = report.layers[0]!.after!;
  const unsealed = Array.from({ length: runs }, () => {
    rmSync(entry.sealFile(commit, "skills"), { force: true });
    return resolveInFreshProcess();
  });

  console.log(`git layer, ${files} skill files (~${Math.round((files * 380) / 1024)} KiB), median of ${runs}`);
  console.log(`  first sync (fetch + materialise + lock)   ${syncMs.toFixed(0)} ms`);
  console.log(`  resolve at start-up, sealed (stamps)      ${median(sealed).toFixed(1)} ms`);
  console.log(`  resolve at start-up, unsealed (hash all)  ${median(unsealed).toFixed(1)} ms`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
