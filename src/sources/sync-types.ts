/**
 * `skill-central sync`: makes each git layer's local copy match what it should serve.
 *
 * - `sync`: a locked layer gets a copy of its locked commit (fetched only if the cache lacks it);
 *   a project layer not yet locked, or whose lock entry no longer matches the config, is fetched
 *   at its ref and locked; a user layer (never locked) moves to its ref's current commit. For
 *   locked layers the remote is then asked (cheaply, without fetching) whether the ref moved and
 *   whether the locked commit still exists there; failure to ask is only a note.
 * - `update`: the named layer (or every layer) moves to its ref's current commit; the lock follows.
 *   A commit older than the one served (an ancestor of it), or a signed index published before
 *   the served one, is refused unless the request allows a downgrade (src/sources/downgrade.ts).
 * - `frozen`: like `sync`, but the lockfile is never written: a lock that would change is a failure.
 * - `check`: nothing is fetched or written; reports whether anything is out of date.
 */
import type { Signer } from "../storage/allowed-signers.ts";
import type { SkillChanges } from "./skill-changes.ts";

export type SyncMode = "sync" | "update" | "frozen" | "check";

export type LayerOutcome =
  /** Already what it should be. */
  | "unchanged"
  /** A project layer locked for the first time (or again, after its source changed). */
  | "locked"
  /** Moved from one commit to another. */
  | "updated"
  /** The right commit, but its copy was missing or damaged and is made again. */
  | "restored"
  /** A layer without a lock entry, fetched for the first time on this machine. */
  | "fetched"
  /** `check` / `frozen`: not what it should be. */
  | "out-of-date"
  | "failed";

export interface LayerSyncReport {
  name: string;
  /** Redacted. */
  url: string;
  ref: string;
  path: string;
  /** Pinned by the project's lockfile (a project layer); user layers follow their ref. */
  locked: boolean;
  outcome: LayerOutcome;
  /** The commit served before (as far as this machine knows) and after. */
  before?: string;
  after?: string;
  /** Skill files added, removed and changed between `before` and `after`. */
  changes?: SkillChanges;
  /** Worth knowing, not failures (the ref moved on; the remote could not be asked). */
  notes: string[];
  /** Why it failed or is out of date. */
  problem?: string;
  /** A layer with `signers`: who signed what it serves now, verified by this sync. */
  signer?: Signer;
}
