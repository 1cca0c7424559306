import { homedir } from "node:os";
import { projectConfigPath } from "../config/config-file.ts";
import { resolveConfig, type ConfigOptions, type LayerSpec, type ResolvedConfig } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { CacheEntry } from "./cache-entry.ts";
import { canonicalUrl, classifyGitUrl, redactUrl } from "./git-url.ts";
import { lockfilePath, readLockfile, sameSource, type Lockfile } from "./lockfile.ts";
import { verifyCopy } from "./verify-copy.ts";

/**
 * Config resolution for the loader: the config's layers, with each git layer turned into a
 * folder, the verified copy of the commit it serves. This runs on the path to the first answer,
 * so it never runs git and never touches the network: it reads the lockfile and the cache, and
 * hashes the copy (once per process). A layer with nothing verified to serve contributes nothing,
 * with a warning that names the command to run.
 *
 * Which commit a git layer serves:
 * - a layer of the project config with a lock entry for its url, ref and path: the locked commit;
 * - any other git layer (a user layer, or one not synced yet): the commit `skill-central sync` or
 *   the background refresh last made current for its ref (the cache's `current.json`).
 */
export async function resolveLayers(options: ConfigOptions, report: (d: Diagnostic) => void): Promise<ResolvedConfig> {
  const config = await resolveConfig(options, report);
  if (!config.layers.some((l) => l.git)) return config;
  const home = options.home ?? homedir();
  const projectFile = projectConfigPath(options.cwd);
  const lock = projectFile ? await readLockfile(lockfilePath(projectFile), report) : undefined;
  const inputs = new Set<string>(lock ? [lock.file] : []);
  const layers = await Promise.all(
    config.layers.map((spec) => (spec.git ? resolveGitLayer(spec, { home, lock, projectFile, inputs, report }) : spec)),
  );
  return { ...config, layers, inputs: [...(config.inputs ?? []), ...inputs] };
}

interface Context {
  home: string;
  lock: Lockfile | undefined;
  projectFile: string | undefined;
  /** Files whose change should reload the layers. */
  inputs: Set<string>;
  report: (d: Diagnostic) => void;
}

/** Whether `spec` is locked by the project's lockfile (declared in the project config). */
export function isLockable(spec: LayerSpec, projectFile: string | undefined): boolean {
  return projectFile !== undefined && spec.origin === projectFile;
}

async function resolveGitLayer(spec: LayerSpec, ctx: Context): Promise<LayerSpec> {
  const source = spec.git!;
  const url = redactUrl(source.url);
  const label = `git layer "${spec.name}" (${url}${source.ref === "HEAD" ? "" : ` ${source.ref}`}${source.path ? `, ${source.path}/` : ""})`;
  const unavailable = (code: string, message: string, dir = "", severity: Diagnostic["severity"] = "warning", file = spec.origin): LayerSpec => {
    ctx.report({ severity, code, file, message: `${label}: ${message}` });
    return { ...spec, dir, unavailable: message };
  };
  const kind = classifyGitUrl(source.url);
  if ("problem" in kind) return unavailable("git-url", `the URL ${kind.problem}; the layer contributes no skills`);

  const entry = new CacheEntry(source.url, ctx.home);
  const locked = isLockable(spec, ctx.projectFile) ? ctx.lock?.entries.get(spec.name) : undefined;
  let commit: string;
  let expected: string;
  if (locked) {
    if (!sameSource(locked, { url: canonicalUrl(source.url), ref: source.ref, path: source.path })) {
      return unavailable("git-lock-outdated", `${ctx.lock!.file.split(/[\\/]/).pop()} locks ${locked.url} ${locked.ref}${locked.path ? ` ${locked.path}/` : ""}, not what the config now says; run \`skill-central sync\` to lock it`);
    }
    ({ commit, contentHash: expected } = locked);
  } else if (isLockable(spec, ctx.projectFile) && source.refreshMs === undefined) {
    return unavailable("git-not-synced", "not in skill-central.lock yet; run `skill-central sync` to fetch it and lock its commit");
  } else {
    ctx.inputs.add(entry.currentFile);
    const current = await entry.current(source.ref, source.path);
    if (!current) {
      const hint = source.refreshMs !== undefined ? " (or wait: the server fetches it in the background)" : "";
      return unavailable("git-not-synced", `not synced on this machine yet; run \`skill-central sync\`${hint}`);
    }
    ({ commit, contentHash: expected } = current);
  }
  const dir = entry.copyDir(commit, source.path);
  const copy = await verifyCopy(dir, entry.sealFile(commit, source.path), expected);
  if (copy.state === "missing") return unavailable("git-copy-missing", `no local copy of commit ${commit.slice(0, 12)}; run \`skill-central sync\``, dir);
  if (copy.state === "mismatch") {
    return unavailable("git-copy-mismatch", `the local copy of commit ${commit.slice(0, 12)} does not match its contentHash and is not served; run \`skill-central sync\` to restore it`, dir, "error");
  }
  return { ...spec, dir, provenance: { url, commit, path: source.path } };
}
