/**
 * `sync` for a layer with `url` (docs/well-known.md), in the modes of git layers (sync.ts):
 * - a locked layer whose copy verifies is left as it is (the index is read, only to note what
 *   changed there); one whose copy is missing is fetched again from the locked index URL, and
 *   every skill must still have its locked digest;
 * - `update`, a layer not locked yet, or one whose url or `skills` changed: what the index says
 *   now, locked (a project layer) or made current (a user layer);
 * - `check` fetches nothing; `frozen` never changes the lock.
 * The report's `before`/`after` are the copy's contentHash (hex), its `changes` by skill name.
 */
import { auditCopy, gateFor, type GateSettings } from "../../audit/gate.ts";
import type { AuditSettings } from "../../config/audit-settings.ts";
import type { WellKnownSource } from "../../config/layer-source.ts";
import type { LayerFrom } from "../../config/resolve-config.ts";
import { type Digest, digestHex } from "../../storage/digest.ts";
import { describeFsError } from "../../storage/fs-errors.ts";
import { canonicalUrl, redactUrl } from "../git-url.ts";
import type { WellKnownLockEntry } from "../lockfile.ts";
import type { SkillChanges } from "../skill-changes.ts";
import type { LayerSyncReport, SyncMode } from "../sync-types.ts";
import { verifyCopy } from "../verify-copy.ts";
import { type CopySkills, holdsSkills, WellKnownCache } from "./cache.ts";
import { type DownloadOptions, downloadLayer, fetchIndex, LayerRefused } from "./download.ts";
import { type BearerToken, tokenUrlProblem } from "./fetch.ts";
import { type IndexVerifier, indexVerifier, servedSignerRevoked } from "./signed-index.ts";

export interface WellKnownContext {
  mode: SyncMode;
  /** `update` names this layer, or every layer. */
  moving: boolean;
  lockable: boolean;
  /** The lockfile's well-known entries, updated in place. */
  entries: Map<string, WellKnownLockEntry>;
  home: string;
  timeoutMs: number;
  env: Record<string, string | undefined>;
  /** The audit gate's settings (docs/audit.md): a blocked skill refuses the copy, never written. */
  audit?: AuditSettings | undefined;
  /** Take a signed index published before the one served (`--allow-downgrade`). */
  allowDowngrade?: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
function changesBetween(before: CopySkills | undefined, after: CopySkills): SkillChanges {
  const changes: SkillChanges = { added: [], removed: [], changed: [] };
  const file = (name: string) => ({ id: name, file: `${name}/SKILL.md` });
  for (const name of Object.keys(after).sort()) {
    if (!before?.[name]) changes.added.push(file(name));
    else if (before[name].digest !== after[name]!.digest) changes.changed.push(file(name));
  }
  for (const name of Object.keys(before ?? {}).sort()) if (!after[name]) changes.removed.push(file(name));
  return changes;
}

interface Facts {
  spec: LayerFrom<WellKnownSource>;
  ctx: WellKnownContext;
  result: LayerSyncReport;
  cache: WellKnownCache;
  /** The canonical index URL the config names. */
  url: string;
  /** What the layer serves now (the lock's entry, or the cache's current), if anything. */
  target: WellKnownLockEntry | undefined;
  /** The lock entry is for what the config says. */
  matches: boolean;
}

type Fail = (outcome: "failed" | "out-of-date", problem: string) => LayerSyncReport;

export async function syncWellKnownLayer(
  spec: LayerFrom<WellKnownSource>,
  ctx: WellKnownContext,
): Promise<LayerSyncReport> {
  const { source } = spec;
  const url = canonicalUrl(source.url);
  const result: LayerSyncReport = {
    name: spec.name,
    url: redactUrl(source.url),
    ref: "",
    path: "",
    locked: ctx.lockable,
    outcome: "unchanged",
    notes: [],
  };
  const fail: Fail = (outcome, problem) => Object.assign(result, { outcome, problem });
  const cache = new WellKnownCache(url, ctx.home);
  const locked = ctx.lockable ? ctx.entries.get(spec.name) : undefined;
  const matches = locked !== undefined && locked.url === url && holdsSkills(locked.skills, source.skills);
  const current = ctx.lockable ? undefined : await cache.current();
  const target = matches ? locked : current?.url === url ? current : undefined;
  if (target) result.before = digestHex(target.contentHash);
  const copyOk =
    target !== undefined &&
    (await verifyCopy(cache.copyDir(target.contentHash), cache.sealFile(target.contentHash), target.contentHash))
      .state === "ok";
  if (ctx.mode === "check") {
    if (!target)
      return fail(
        "out-of-date",
        `${ctx.lockable ? "not in the lockfile" : "not synced on this machine"}; run skill-central sync`,
      );
    result.after = result.before!;
    if (source.signers !== undefined && !target.signer)
      return fail("out-of-date", "the index was not verified against its signers; run skill-central sync");
    return copyOk ? result : fail("out-of-date", "the local copy is missing or damaged; run skill-central sync");
  }
  if (ctx.lockable && !matches && ctx.mode === "frozen")
    return fail(
      "out-of-date",
      locked ? "the lock entry is for another url or skills than the config says" : "not in the lockfile",
    );
  const held = await cache.lock();
  if (!held) return fail("failed", "another skill-central process kept the cache busy for too long");
  try {
    return await fetchLayer({ spec, ctx, result, cache, url, target, matches }, copyOk, fail);
  } catch (error) {
    if (error instanceof LayerRefused) return fail("failed", error.problems.join("\n    "));
    // The cache cannot be written (a full disk, a name it refuses): this layer fails, the others go on.
    if ((error as NodeJS.ErrnoException).code !== undefined)
      return fail("failed", `the copy cannot be written: ${describeFsError(error)}`);
    throw error;
  } finally {
    await held.release();
  }
}

/** The bearer token for the layer (sent to the origin of its url only), or why the layer cannot use it. */
function bearerToken(
  spec: LayerFrom<WellKnownSource>,
  url: string,
  env: WellKnownContext["env"],
): BearerToken | string | undefined {
  const { tokenEnv } = spec.source;
  if (tokenEnv === undefined) return undefined;
  const token = env[tokenEnv];
  if (!token) return `the environment variable ${tokenEnv} (tokenEnv) is not set`;
  return tokenUrlProblem(url, tokenEnv) ?? { token, origin: new URL(url).origin };
}

function outcomeOf(facts: Facts, restoring: boolean): LayerSyncReport["outcome"] {
  if (restoring) return "restored";
  if (facts.target === undefined) return facts.ctx.lockable ? "locked" : "fetched";
  return facts.result.before === facts.result.after ? "unchanged" : "updated";
}

/**
 * Downloads the layer into a staged copy, audits it and puts it in place; its skills and
 * contentHash. A copy the lock's hash or the audit refuses is discarded, never placed.
 */
async function download(
  cache: WellKnownCache,
  indexUrl: string,
  options: DownloadOptions,
  lockedHash: Digest | undefined,
  audit: GateSettings | undefined,
): Promise<{ skills: CopySkills; notes: string[]; hash: Digest }> {
  const staged = cache.stage();
  try {
    const downloaded = await downloadLayer(indexUrl, options, staged);
    const hash = await staged.contentHash();
    if (lockedHash !== undefined && hash !== lockedHash)
      throw new LayerRefused(["the skills fetched do not hash to the lock's contentHash; not served"]);
    // Judged as the loader will serve the copy (audit/gate.ts), one skill's files in memory at a time.
    const audited = audit && (await auditCopy(staged.dir, audit));
    await audit?.cache?.save();
    if (audited && audited.refused.length > 0) throw new LayerRefused(audited.refused);
    await staged.place(cache.copyDir(hash), cache.sealFile(hash), hash);
    return { ...downloaded, hash };
  } catch (error) {
    await staged.discard();
    throw error;
  }
}

/** With the cache entry held: keeps, restores or replaces the layer's copy. */
async function fetchLayer(facts: Facts, copyOk: boolean, fail: Fail): Promise<LayerSyncReport> {
  const { spec, ctx, result, cache, url, target } = facts;
  const { source } = spec;
  const auth = bearerToken(spec, url, ctx.env);
  if (typeof auth === "string") return fail("failed", auth);
  const base = { timeoutMs: ctx.timeoutMs || DEFAULT_TIMEOUT_MS, ...(auth && { auth }) };
  const only = source.skills && { only: source.skills };
  const restoring = facts.matches && !ctx.moving ? target : undefined;
  // Moving: an index published before the one served is a downgrade (a restore takes the locked skills only).
  const served =
    target && !restoring && !ctx.allowDowngrade
      ? { layer: spec.name, published: target.published, locked: ctx.lockable }
      : undefined;
  const signed =
    source.signers === undefined
      ? undefined
      : indexVerifier({ signers: source.signers, revoked: source.revoked }, base, served);
  // A copy locked before `signers` was added is fetched again, to check the index's signature.
  if (restoring && copyOk && (!signed || restoring.signer)) {
    result.after = result.before!;
    const revoked = restoring.signer && (await servedSignerRevoked(source, restoring.signer));
    if (revoked) return fail("failed", revoked);
    if (restoring.signer) result.signer = restoring.signer;
    // The index is judged as --update would judge it, so a refused one is never suggested.
    const judge =
      source.signers === undefined
        ? undefined
        : indexVerifier({ signers: source.signers, revoked: source.revoked }, base, {
            layer: spec.name,
            published: restoring.published,
            locked: ctx.lockable,
          });
    await noteIndexChanges(result, restoring.url, restoring.skills, { ...base, ...only }, judge);
    return result;
  }
  const indexUrl = restoring ? restoring.url : url;
  const downloaded = await download(
    cache,
    indexUrl,
    {
      ...base,
      ...(restoring ? { expect: restoring.skills } : only),
      ...(signed && { verifyIndex: signed.verify }),
    },
    restoring?.contentHash,
    gateFor(ctx.audit, spec.name, ctx.home),
  );
  for (const note of downloaded.notes) result.notes.push(note);
  result.after = digestHex(downloaded.hash);
  const [signer, published] = [signed?.signer(), signed?.published()];
  if (signer) result.signer = signer;
  const entry = {
    url: indexUrl,
    skills: downloaded.skills,
    contentHash: downloaded.hash,
    ...(signer && { signer }),
    ...(published !== undefined && { published }),
  };
  if (ctx.lockable) ctx.entries.set(spec.name, entry);
  else await cache.setCurrent(entry);
  result.changes = changesBetween(target?.skills, downloaded.skills);
  result.outcome = outcomeOf(facts, restoring !== undefined);
  return result;
}

/** Reads the index (a note if it cannot) and notes the skills that differ from the copy served. */
async function noteIndexChanges(
  result: LayerSyncReport,
  indexUrl: string,
  served: CopySkills,
  options: { timeoutMs: number; auth?: BearerToken; only?: readonly string[] },
  judge: IndexVerifier | undefined,
): Promise<void> {
  try {
    let refused: string | undefined;
    const verifyIndex =
      judge &&
      (async (bytes: Uint8Array, url: string) => {
        try {
          await judge.verify(bytes, url);
        } catch (error) {
          if (!(error instanceof LayerRefused)) throw error;
          refused = error.problems.join("; ");
        }
      });
    const { entries } = await fetchIndex(indexUrl, { ...options, ...(verifyIndex && { verifyIndex }) });
    const names = options.only ?? [...entries.keys()];
    const moved = names.filter((n) => entries.get(n)?.digest !== served[n]?.digest);
    const gone = Object.keys(served).filter((n) => !entries.has(n));
    if (moved.length + gone.length === 0) return;
    const differs = `the index now differs for ${[...new Set([...moved, ...gone])].sort().join(", ")}`;
    result.notes.push(
      refused === undefined
        ? `${differs}; \`skill-central sync --update ${result.name}\` takes it`
        : `${differs}, but \`skill-central sync --update\` refuses it: ${refused}; the copy served stays`,
    );
  } catch (error) {
    result.notes.push(`${(error as Error).message}; the local copy was verified, the index was not read`);
  }
}
