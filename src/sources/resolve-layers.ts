/** The config's layers as the loader needs them: each git layer the folder of the verified copy it serves, found without git or the network. */
import { homedir } from "node:os";
import { projectConfigPath } from "../config/config-file.ts";
import { isRemote, type GitSource } from "../config/layer-source.ts";
import { resolveConfig, type ConfigOptions, type LayerSpec, type ResolvedConfig } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { CacheEntry } from "./cache-entry.ts";
import { canonicalUrl, classifyGitUrl, redactUrl } from "./git-url.ts";
import { applySourcePolicy } from "./source-policy.ts";
import { LOCKFILE_NAME, lockfilePath, readLockfile, sameSource, type Lockfile } from "./lockfile.ts";
import type { Signer } from "./lock-signer.ts";
import { verifyCopy } from "./verify-copy.ts";
import { resolveWellKnownLayer } from "./well-known/resolve-layer.ts";

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
  // A layer outside `policy.sources` is refused here, before its lock entry or cache is looked at.
  const config = applySourcePolicy(await resolveConfig(options, report), report);
  if (!config.layers.some((l) => isRemote(l.source) && !l.outsidePolicy)) return config;
  const home = options.home ?? homedir();
  const projectFile = projectConfigPath(options.cwd);
  const lock = projectFile ? await readLockfile(lockfilePath(projectFile), report) : undefined;
  const inputs = new Set<string>(lock ? [lock.file] : []);
  const resolveLayer = (spec: LayerSpec): LayerSpec | Promise<LayerSpec> => {
    const { source } = spec;
    if (spec.outsidePolicy) return spec;
    switch (source.kind) {
      case "path":
        return spec;
      case "git":
        return resolveGitLayer(spec, source, { home, lock, projectFile, inputs, report });
      case "well-known":
        return resolveWellKnownLayer(spec, source, {
          home,
          lock,
          lockable: isLockable(spec, projectFile),
          inputs,
          report,
        });
    }
  };
  const layers = await Promise.all(config.layers.map(resolveLayer));
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

/** A layer with `signers` whose commit sync has not verified (a lock from before `signers` was added). */
const notVerified = (commit: string) => ({
  code: "git-not-verified",
  message: `its commit ${commit.slice(0, 12)} was not verified against its signers`,
  hint: "run `skill-central sync` to check the commit's signature",
});

async function resolveGitLayer(spec: LayerSpec, source: GitSource, ctx: Context): Promise<LayerSpec> {
  const url = redactUrl(source.url);
  const label = `git layer "${spec.name}" (${url}${source.ref === "HEAD" ? "" : ` ${source.ref}`}${source.path ? `, ${source.path}/` : ""})`;
  interface Why {
    code: string;
    message: string;
    hint: string;
    dir?: string;
    severity?: Diagnostic["severity"];
  }
  // The layer contributes nothing; `dir`, when known, is where its copy will appear (watched).
  const unavailable = ({ code, message, hint, dir = "", severity = "warning" }: Why): LayerSpec => {
    ctx.report({
      severity,
      code,
      file: spec.origin,
      message: `${label}: ${message}, so it contributes no skills`,
      hint,
    });
    return { ...spec, dir, unavailable: message };
  };
  const SYNC = "run `skill-central sync`";
  const kind = classifyGitUrl(source.url);
  if ("problem" in kind)
    return unavailable({
      code: "git-url",
      message: `the URL ${kind.problem}`,
      hint: "use an https://, ssh://, git://, file:// or user@host:path URL",
    });

  const entry = new CacheEntry(source.url, ctx.home);
  const locked = isLockable(spec, ctx.projectFile) ? ctx.lock?.entries.get(spec.name) : undefined;
  let commit: string;
  let expected: string;
  let signer: Signer | undefined;
  if (locked) {
    if (!sameSource(locked, { url: canonicalUrl(source.url), ref: source.ref, path: source.path })) {
      const was = `${locked.url} ${locked.ref}${locked.path ? ` ${locked.path}/` : ""}`;
      return unavailable({
        code: "git-lock-outdated",
        message: `${LOCKFILE_NAME} locks ${was}, not what the config says`,
        hint: `${SYNC} to lock what the config says`,
      });
    }
    ({ commit, contentHash: expected, signer } = locked);
  } else if (isLockable(spec, ctx.projectFile) && source.refreshMs === undefined) {
    return unavailable({
      code: "git-not-synced",
      message: `it is not in ${LOCKFILE_NAME} yet`,
      hint: `${SYNC} to fetch it and lock its commit`,
    });
  } else {
    ctx.inputs.add(entry.currentFile);
    const current = await entry.current(source.ref, source.path);
    if (!current) {
      const wait = source.refreshMs !== undefined ? " (or wait: the server fetches it in the background)" : "";
      return unavailable({
        code: "git-not-synced",
        message: "it has not been fetched on this machine",
        hint: `${SYNC}${wait}`,
      });
    }
    ({ commit, contentHash: expected, signer } = current);
  }
  if (source.signers !== undefined && signer === undefined) return unavailable(notVerified(commit));
  const dir = entry.copyDir(commit, source.path);
  const copy = await verifyCopy(dir, entry.sealFile(commit, source.path), expected);
  if (copy.state === "missing") {
    const missing = unavailable({
      code: "git-copy-missing",
      message: `there is no local copy of commit ${commit.slice(0, 12)}`,
      hint: locked ? `${SYNC} (a running \`skill-central mcp\` fetches it in the background)` : SYNC,
      dir,
    });
    return locked ? { ...missing, missingLocked: commit } : missing;
  }
  if (copy.state === "mismatch") {
    return unavailable({
      code: "git-copy-mismatch",
      message: `the local copy of commit ${commit.slice(0, 12)} does not match its contentHash`,
      hint: `${SYNC} to restore it`,
      dir,
      severity: "error",
    });
  }
  return { ...spec, dir, provenance: { url, commit, path: source.path, ...(signer && { signer }) } };
}
