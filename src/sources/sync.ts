/**
 * `skill-central sync` and `update`: each git or url layer's copy made to match the lock or its
 * ref, fetched, verified, its signer checked and audited, one layer after another, the lockfile written last.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { gateFor } from "../audit/gate.ts";
import type { AuditSettings } from "../config/audit-settings.ts";
import { projectConfigPath } from "../config/config-file.ts";
import { isRemote, layersFrom, type GitSource } from "../config/layer-source.ts";
import { resolveConfig, type ConfigOptions, type LayerFrom, type LayerSpec } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { projectCacheName } from "../storage/cache-dir.ts";
import { CacheEntry, gitCacheRoot, isGoneError, writeFileAtomically } from "./cache-entry.ts";
import { GitError } from "./git.ts";
import { canonicalUrl, classifyGitUrl, redactText, redactUrl } from "./git-url.ts";
import { lockfilePath, readLockfile, sameSource, writeLockfile, type LockEntry } from "./lockfile.ts";
import { CopyRefused, materialise } from "./materialise.ts";
import { verifyCopy } from "./verify-copy.ts";
import { applySourcePolicy } from "./source-policy.ts";
import { pruneCopies } from "./prune.ts";
import { isLockable } from "./resolve-layers.ts";
import { commitDowngrade } from "./downgrade.ts";
import { commitSigner, SignatureRefused, type TrustFiles } from "./signatures.ts";
import { skillChanges } from "./skill-changes.ts";
import type { LayerSyncReport, SyncMode } from "./sync-types.ts";
import type { TreeLimits } from "./tree-entries.ts";
import { syncWellKnownLayer } from "./well-known/sync-layer.ts";

export type { LayerSyncReport, SyncMode } from "./sync-types.ts";

export interface SyncRequest extends ConfigOptions {
  mode: SyncMode;
  /** With `update`: the one layer to move (the others are synced to the lock). */
  layer?: string;
  /** Things a person waiting should know (another process holds the cache), for stderr. */
  note?: (message: string) => void;
  /** Each layer's steps as they start, for a progress line (the CLI shows it on a terminal). */
  progress?: (event: SyncProgress) => void;
  limits?: TreeLimits;
  /** Per git process. */
  timeoutMs?: number;
  /** Take an older commit or index than the one served (`--allow-downgrade`; src/sources/downgrade.ts). */
  allowDowngrade?: boolean;
  /** Only these layers are synced, the others left as they are (the server fetching missing copies). */
  only?: ReadonlySet<string>;
}

/**
 * A step of one layer's sync, reported as it starts: `verifying` a local copy against its
 * contentHash, `fetching` from the remote, `copying` a fetched commit into a verified copy,
 * `asking` the remote (without fetching) whether the ref moved; `done` with the layer's report.
 * Layers are synced one after another, `index` of `total`.
 */
export type SyncProgress = { layer: string; index: number; total: number } & (
  | { phase: "verifying"; commit: string }
  | { phase: "fetching"; url: string; ref: string; commit?: string }
  | { phase: "copying"; commit: string }
  | { phase: "asking"; url: string; ref: string }
  | { phase: "done"; report: LayerSyncReport }
);

export interface SyncReport {
  layers: LayerSyncReport[];
  /** Absent without a project config. */
  lockfile?: {
    file: string;
    written: boolean;
    /** Entries of layers no longer declared (removed, or in `check`/`frozen` reported). */
    stale: string[];
  };
  ok: boolean;
}

/** A request that cannot be carried out at all (no such layer, an unreadable lockfile). */
export class SyncRefused extends Error {
  override readonly name = "SyncRefused";
}

/**
 * What this project last synced, per layer, on this machine: so that a sync after pulling a new
 * lockfile can say what changed since the copy this machine served.
 */
class ProjectHistory {
  private readonly file: string;
  private data: Record<string, { url: string; path: string; commit: string }> = {};
  private dirty = false;

  constructor(cwd: string, home: string) {
    this.file = join(gitCacheRoot(home), "projects", `${projectCacheName(cwd)}.json`);
  }

  async read(): Promise<void> {
    try {
      this.data = JSON.parse(await readFile(this.file, "utf8")) as typeof this.data;
    } catch {
      this.data = {};
    }
  }

  get(name: string, url: string, path: string): string | undefined {
    const entry = this.data[name];
    return entry && entry.url === url && entry.path === path ? entry.commit : undefined;
  }

  set(name: string, url: string, path: string, commit: string): void {
    if (this.get(name, url, path) === commit) return;
    this.data[name] = { url, path, commit };
    this.dirty = true;
  }

  async save(): Promise<void> {
    if (!this.dirty) return;
    await mkdir(join(this.file, ".."), { recursive: true });
    await writeFileAtomically(this.file, `${JSON.stringify(this.data, null, 2)}\n`);
  }
}

function describeError(error: unknown, url: string): string {
  if (error instanceof CopyRefused || error instanceof GitError || error instanceof SignatureRefused)
    return error.message;
  return redactText(error instanceof Error ? error.message : String(error), url);
}

/** `sync --update NAME`: a layer of that name that is a git or url layer, or SyncRefused saying why not. */
function checkNamedLayer(name: string, layers: readonly LayerSpec[]): void {
  const named = layers.find((l) => l.name === name);
  if (!named) {
    const remote = layers.filter((l) => isRemote(l.source)).map((l) => l.name);
    throw new SyncRefused(`no layer named "${name}"; git and url layers: ${remote.join(", ") || "none"}`);
  }
  if (!isRemote(named.source))
    throw new SyncRefused(`layer "${name}" is a folder, not a git or url layer; nothing to update`);
}

/** Copies nobody served for a month go; never one this sync made or checked, nor a current one. */
async function pruneUnused(used: ReadonlyMap<string, { entry: CacheEntry; dirs: Set<string> }>): Promise<void> {
  for (const { entry, dirs } of used.values()) {
    const held = await entry.lock({ timeoutMs: 0 });
    if (!held) continue;
    await pruneCopies(entry, dirs).catch(() => {});
    await held.release();
  }
}

/** Brings every git layer in line (see `SyncMode`); config warnings go to `report`. */
export async function syncLayers(request: SyncRequest, report: (d: Diagnostic) => void): Promise<SyncReport> {
  const home = request.home ?? homedir();
  // Layers outside `policy.sources` fail below, each with its reason; nothing of them is fetched.
  const config = applySourcePolicy(await resolveConfig(request, report), () => {});
  const projectFile = projectConfigPath(request.cwd);
  const lock = projectFile ? await readLockfile(lockfilePath(projectFile), report) : undefined;
  if (lock && !lock.readable && request.mode !== "check") {
    throw new SyncRefused(
      `${lock.file} cannot be read (see above); fix it (a merge conflict?) or delete it, then run skill-central sync again`,
    );
  }
  const [gate, gitLayers] = [config.audit, layersFrom(config.layers, "git")];
  const webLayers = layersFrom(config.layers, "well-known");
  const chosen = (spec: LayerSpec) => request.only === undefined || request.only.has(spec.name);
  if (request.layer !== undefined) checkNamedLayer(request.layer, config.layers);

  const entries = new Map(lock?.entries ?? []);
  const history = new ProjectHistory(request.cwd, home);
  await history.read();
  const layers: LayerSyncReport[] = [];
  const used = new Map<string, { entry: CacheEntry; dirs: Set<string> }>();
  const gitChosen = gitLayers.filter(chosen);
  for (const [index, spec] of gitChosen.entries()) {
    const lockable = isLockable(spec, projectFile);
    const progress: Progress = (step) =>
      request.progress?.({ layer: spec.name, index: index + 1, total: gitChosen.length, ...step } as SyncProgress);
    const layer = spec.outsidePolicy
      ? refusedLayer(spec, lockable)
      : await syncLayer(spec, { request, home, lockable, entries, history, used, progress, gate });
    progress({ phase: "done", report: layer });
    layers.push(layer);
  }
  const webEntries = new Map(lock?.wellKnown ?? []);
  for (const spec of webLayers.filter(chosen)) {
    const layer = spec.outsidePolicy
      ? refusedLayer(spec, isLockable(spec, projectFile))
      : await syncWellKnownLayer(spec, {
          mode: request.mode,
          moving: request.mode === "update" && (request.layer === undefined || request.layer === spec.name),
          lockable: isLockable(spec, projectFile),
          entries: webEntries,
          home,
          timeoutMs: request.timeoutMs ?? 0,
          env: process.env,
          audit: gate,
          allowDowngrade: request.allowDowngrade === true,
        });
    request.progress?.({ layer: spec.name, index: 1, total: 1, phase: "done", report: layer });
    layers.push(layer);
  }
  await history.save().catch(() => {});
  if (request.mode !== "check") await pruneUnused(used);

  const declared = new Set(gitLayers.filter((l) => isLockable(l, projectFile)).map((l) => l.name));
  const declaredWeb = new Set(webLayers.filter((l) => isLockable(l, projectFile)).map((l) => l.name));
  const staleWeb = [...webEntries.keys()].filter((name) => !declaredWeb.has(name));
  const stale = [...[...entries.keys()].filter((name) => !declared.has(name)), ...staleWeb].sort();
  const readOnly = request.mode === "check" || request.mode === "frozen";
  let written = false;
  if (lock && !readOnly) {
    for (const name of stale) {
      entries.delete(name);
      webEntries.delete(name);
    }
    if (entries.size + webEntries.size > 0 || existsSync(lock.file))
      written = await writeLockfile(lock.file, entries, webEntries);
  }
  const lockOk = !readOnly || stale.length === 0;
  return {
    layers,
    ...(lock && { lockfile: { file: lock.file, written, stale } }),
    ok: lockOk && layers.every((l) => l.outcome !== "failed" && l.outcome !== "out-of-date"),
  };
}

/** Distributes over the union, so each step keeps its own fields. */
type Step<T> = T extends unknown ? Omit<T, "layer" | "index" | "total"> : never;
type Progress = (step: Step<SyncProgress>) => void;

interface LayerContext {
  request: SyncRequest;
  progress: Progress;
  home: string;
  lockable: boolean;
  /** The lockfile's entries, updated in place. */
  entries: Map<string, LockEntry>;
  history: ProjectHistory;
  /** Per cache entry, the copies this sync made or kept (never pruned). */
  used: Map<string, { entry: CacheEntry; dirs: Set<string> }>;
  /** The audit gate's settings: what a fetched skill may hold (docs/audit.md). */
  gate: AuditSettings | undefined;
}

async function syncLayer(spec: LayerFrom<GitSource>, ctx: LayerContext): Promise<LayerSyncReport> {
  const { source } = spec;
  const { mode } = ctx.request;
  const canonical = canonicalUrl(source.url);
  const result: LayerSyncReport = {
    name: spec.name,
    url: redactUrl(source.url),
    ref: source.ref,
    path: source.path,
    locked: ctx.lockable,
    outcome: "unchanged",
    notes: [],
  };
  const kind = classifyGitUrl(source.url);
  if ("problem" in kind) return failed(result, "failed", `the URL ${kind.problem}`);

  const entry = new CacheEntry(source.url, ctx.home);
  const locked = ctx.lockable ? ctx.entries.get(spec.name) : undefined;
  const matches = locked !== undefined && sameSource(locked, { url: canonical, ref: source.ref, path: source.path });
  const current = ctx.lockable ? undefined : await entry.current(source.ref, source.path);
  // What this machine served before: its last sync of this project, else the lock or current copy.
  const previous = ctx.history.get(spec.name, canonical, source.path);
  const before = previous ?? (matches ? locked.commit : current?.commit);
  if (before !== undefined) result.before = before;
  const moving = mode === "update" && (ctx.request.layer === undefined || ctx.request.layer === spec.name);

  if (mode === "check")
    return checkLayer(result, {
      entry,
      source,
      lockable: ctx.lockable,
      locked,
      matches,
      current,
      progress: ctx.progress,
    });
  if (ctx.lockable && !matches && mode === "frozen") {
    return failed(
      result,
      "out-of-date",
      locked ? "the lock entry is for another url, ref or path than the config says" : "not in the lockfile",
    );
  }

  const held = await entry.lock({
    onWait: (pid) =>
      ctx.request.note?.(`waiting for another skill-central process (pid ${pid}) using the cache of ${result.url}`),
  });
  if (!held) return failed(result, "failed", "another skill-central process kept the cache busy for too long");
  try {
    await entry.removeLeftovers();
    const step: LayerStep = { result, ctx, entry, source, name: spec.name };
    const commit =
      matches && !moving
        ? await keepLockedCommit(step, locked, previous)
        : await fetchRefTip(step, canonical, matches, matches ? locked.commit : current?.commit);
    if (typeof commit !== "string") return commit;
    result.after = commit;
    ctx.history.set(spec.name, canonical, source.path, commit);
    const used = ctx.used.get(entry.dir) ?? { entry, dirs: new Set<string>() };
    used.dirs.add(entry.copyDir(commit, source.path));
    ctx.used.set(entry.dir, used);
    if (result.before !== commit) await compareWithBefore(result, entry, source.path, commit);
    return result;
  } catch (error) {
    return failed(result, "failed", describeError(error, source.url));
  } finally {
    await held.release();
  }
}

/** A layer `policy.sources` refuses: failed, its lock entry (if any) left as it was, nothing fetched. */
function refusedLayer(spec: LayerSpec, locked: boolean): LayerSyncReport {
  const { source } = spec;
  return {
    name: spec.name,
    url: source.kind === "path" ? source.path : redactUrl(source.url),
    ref: source.kind === "git" ? source.ref : "",
    path: source.kind === "git" ? source.path : "",
    locked,
    outcome: "failed",
    notes: [],
    problem: spec.unavailable ?? "it is outside policy.sources",
  };
}

function failed(result: LayerSyncReport, outcome: "failed" | "out-of-date", problem: string): LayerSyncReport {
  return Object.assign(result, { outcome, problem });
}

/** One layer's sync, with its cache entry held. */
interface LayerStep {
  result: LayerSyncReport;
  ctx: LayerContext;
  entry: CacheEntry;
  source: GitSource;
  name: string;
}

/** Keeps the locked commit, fetching it only when the cache lacks it; the commit, or the failed report. */
async function keepLockedCommit(
  { result, ctx, entry, source, name }: LayerStep,
  locked: LockEntry,
  previous: string | undefined,
): Promise<string | LayerSyncReport> {
  const { commit, contentHash } = locked;
  const timeoutMs = ctx.request.timeoutMs;
  ctx.progress({ phase: "verifying", commit });
  const had =
    (await verifyCopy(entry.copyDir(commit, source.path), entry.sealFile(commit, source.path), contentHash)).state ===
    "ok";
  // With signers the commit object itself is checked: fetched if the cache has the copy but not it.
  if (!had || (source.signers !== undefined && !(await entry.hasCommit(commit)))) {
    try {
      ctx.progress({ phase: "fetching", url: result.url, ref: source.ref, commit });
      if ((await entry.fetchCommit(commit, timeoutMs)) === "fetched")
        await entry.recordFetch({ ok: true }, { commit, gone: false });
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      const gone = isGoneError(error.detail);
      await entry.recordFetch({ ok: false, error: error.message }, gone ? { commit, gone } : undefined);
      return failed(result, "failed", gone ? orphanedProblem(commit, name, false) : error.message);
    }
  }
  // The locked commit is checked too: a lockfile edited to name another commit is refused.
  const signer = await commitSigner(entry.repo, commit, source);
  if (signer) result.signer = signer;
  if (ctx.lockable) ctx.entries.set(name, { ...locked, ...(signer && { signer }) });
  if (!had) {
    ctx.progress({ phase: "copying", commit });
    await materialise(entry, commit, source.path, {
      expect: contentHash,
      audit: gateFor(ctx.gate, name, ctx.home),
      ...(ctx.request.limits && { limits: ctx.request.limits }),
    });
    if (previous === undefined) {
      // A machine that never served this layer: a first fetch, every skill new to it.
      delete result.before;
      result.outcome = "fetched";
    } else {
      result.outcome = previous === commit ? "restored" : "updated";
    }
  } else if (result.before !== undefined && result.before !== commit) {
    result.outcome = "updated";
  }
  if (ctx.request.mode === "sync" && ctx.request.layer === undefined) {
    ctx.progress({ phase: "asking", url: result.url, ref: source.ref });
    await checkRemote(result, entry, commit, { ref: source.ref, trust: source, locked: ctx.lockable }, timeoutMs);
  }
  return commit;
}

/** Fetches the ref's tip and copies it, locking or recording it; the commit, or the failed report. */
async function fetchRefTip(
  { result, ctx, entry, source, name }: LayerStep,
  canonical: string,
  matches: boolean,
  served: string | undefined,
): Promise<string | LayerSyncReport> {
  let commit: string;
  try {
    ctx.progress({ phase: "fetching", url: result.url, ref: source.ref });
    commit = await entry.fetchRef(source.ref, ctx.request.timeoutMs);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    await entry.recordFetch({ ok: false, error: error.message });
    return failed(result, "failed", error.message);
  }
  await entry.recordFetch({ ok: true });
  // Before anything is copied or locked: a refused commit leaves the verified copy serving.
  const signer = await commitSigner(entry.repo, commit, source);
  if (served !== undefined && !ctx.request.allowDowngrade) {
    const facts = { layer: name, locked: ctx.lockable, timeoutMs: ctx.request.timeoutMs };
    const older = await commitDowngrade(entry, commit, served, facts);
    if (older !== undefined) return failed(result, "failed", older);
  }
  if (signer) result.signer = signer;
  ctx.progress({ phase: "copying", commit });
  const { contentHash } = await materialise(entry, commit, source.path, {
    audit: gateFor(ctx.gate, name, ctx.home),
    ...(ctx.request.limits && { limits: ctx.request.limits }),
  });
  const copy = { commit, contentHash, ...(signer && { signer }) };
  if (ctx.lockable) ctx.entries.set(name, { url: canonical, ref: source.ref, path: source.path, ...copy });
  else await entry.setCurrent(source.ref, source.path, copy);
  const first = ctx.lockable ? !matches : served === undefined;
  result.outcome =
    result.before === commit
      ? first && ctx.lockable
        ? "locked"
        : "unchanged"
      : first
        ? ctx.lockable
          ? "locked"
          : "fetched"
        : "updated";
  return commit;
}

/** What changed since the commit this machine served before, when it still has that copy. */
async function compareWithBefore(
  result: LayerSyncReport,
  entry: CacheEntry,
  path: string,
  commit: string,
): Promise<void> {
  const beforeDir = result.before ? entry.copyDir(result.before, path) : undefined;
  result.changes = await skillChanges(
    beforeDir && existsSync(beforeDir) ? beforeDir : undefined,
    entry.copyDir(commit, path),
  );
  if (result.before && !(beforeDir && existsSync(beforeDir)))
    result.notes.push(
      `no copy of ${result.before.slice(0, 12)} on this machine to compare with: every skill is listed as added`,
    );
}

function orphanedProblem(commit: string, layer: string, served: boolean): string {
  return (
    `the locked commit ${commit.slice(0, 12)} is no longer on the remote (its history was rewritten: a force-push?)` +
    (served ? "; still served from the local copy" : " and is not in this machine's cache") +
    `; \`skill-central sync --update ${layer}\` locks the ref's current commit`
  );
}

/**
 * Asks the remote, without fetching, whether the locked commit is still the ref's tip, and if not
 * whether the remote still has it at all ("orphaned"). Each answer is a note; not being able to
 * ask is one too (offline is normal).
 */
async function checkRemote(
  result: LayerSyncReport,
  entry: CacheEntry,
  commit: string,
  { ref, trust, locked }: { ref: string; trust: TrustFiles; locked: boolean },
  timeoutMs?: number,
): Promise<void> {
  let tip: string | undefined;
  try {
    tip = /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(ref) ? undefined : await entry.remoteCommit(ref, timeoutMs);
  } catch (error) {
    const message = error instanceof GitError ? error.message : String(error);
    await entry.recordFetch({ ok: false, error: message });
    result.notes.push(`${message}; the local copy was verified, the remote was not asked`);
    return;
  }
  if (tip === commit) {
    await entry.recordFetch({ ok: true }, { commit, gone: false });
    return;
  }
  const probe = await entry.probeCommit(commit, timeoutMs);
  if (probe === "gone") {
    await entry.recordFetch({ ok: true }, { commit, gone: true });
    result.notes.push(orphanedProblem(commit, result.name, true));
  } else {
    await entry.recordFetch({ ok: true }, probe === "present" ? { commit, gone: false } : undefined);
  }
  if (tip === undefined) {
    if (!/^[0-9a-f]{40}/.test(ref)) result.notes.push(`the remote has no ref "${ref}" any more`);
    return;
  }
  // Never suggest an update that would be refused: a tip this cache has is judged as --update would.
  const refusal = await wouldRefuse(entry, tip, commit, { layer: result.name, trust, locked, timeoutMs });
  result.notes.push(
    refusal === undefined
      ? `${ref} is now at ${tip.slice(0, 12)}; \`skill-central sync --update ${result.name}\` moves the lock there`
      : `${ref} is now at ${tip.slice(0, 12)}, which \`skill-central sync --update\` refuses: ${refusal}; the lock stays at ${commit.slice(0, 12)}`,
  );
}

/** Why `sync --update` would refuse `tip` (a commit the cache already has), or undefined. */
async function wouldRefuse(
  entry: CacheEntry,
  tip: string,
  served: string,
  facts: { layer: string; trust: TrustFiles; locked: boolean; timeoutMs?: number | undefined },
): Promise<string | undefined> {
  if (!(await entry.hasCommit(tip))) return undefined;
  try {
    await commitSigner(entry.repo, tip, facts.trust);
  } catch (error) {
    if (error instanceof SignatureRefused) return error.message;
    throw error;
  }
  return commitDowngrade(entry, tip, served, facts);
}

async function checkLayer(
  result: LayerSyncReport,
  facts: {
    entry: CacheEntry;
    source: GitSource;
    lockable: boolean;
    locked?: LockEntry;
    matches: boolean;
    current?: { commit: string; contentHash: string };
    progress: Progress;
  },
): Promise<LayerSyncReport> {
  const fail = (problem: string): LayerSyncReport => Object.assign(result, { outcome: "out-of-date", problem });
  const { entry, source } = facts;
  let target: { commit: string; contentHash: string; signer?: unknown };
  if (facts.lockable) {
    if (!facts.locked) return fail("not in the lockfile; run skill-central sync");
    if (!facts.matches)
      return fail("the lock entry is for another url, ref or path than the config says; run skill-central sync");
    target = facts.locked;
  } else {
    if (!facts.current) return fail("not synced on this machine; run skill-central sync");
    target = facts.current;
  }
  result.after = target.commit;
  if (source.signers !== undefined && target.signer === undefined)
    return fail(`${target.commit.slice(0, 12)} was not verified against its signers; run skill-central sync`);
  facts.progress({ phase: "verifying", commit: target.commit });
  const copy = await verifyCopy(
    entry.copyDir(target.commit, source.path),
    entry.sealFile(target.commit, source.path),
    target.contentHash,
  );
  if (copy.state === "missing") return fail(`no local copy of ${target.commit.slice(0, 12)}; run skill-central sync`);
  if (copy.state === "mismatch")
    return fail(
      `the local copy of ${target.commit.slice(0, 12)} does not match its contentHash; run skill-central sync`,
    );
  const orphanedAt = (await entry.fetchRecord()).orphaned?.[target.commit];
  if (facts.lockable && orphanedAt !== undefined) return fail(orphanedProblem(target.commit, result.name, true));
  return result;
}
