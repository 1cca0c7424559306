/**
 * One well-known index's place in the user's cache, beside the git layers' and managed the same
 * way (a lock per entry, read-only copies staged and renamed into place, seals: staged-copy.ts):
 *
 *     <cache>/well-known/<host>-<port>-<hash>/   e.g. example.com-443-0123456789ab, 127.0.0.1-8770-…
 *       lock                       held while anything below is written
 *       copies/<contentHash hex>/  a layer folder: one `<skill>/` folder per skill
 *       copies/.tmp-…/             a copy being downloaded (download.ts)
 *       seals/<contentHash hex>.json
 *       current.json               for layers without a lock entry: what they serve now
 *
 * The folder's name shows in paths a skill's text is given (`${CLAUDE_SKILL_DIR}`), so it is the
 * whole host name and port, readable, and a short hash of the index URL to keep URLs apart.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { cacheRoot } from "../../storage/cache-dir.ts";
import { type Digest, digestHex, parseDigest, shortHash } from "../../storage/digest.ts";
import { writeFileAtomically } from "../cache-entry.ts";
import { acquireLock, type HeldLock, type LockOptions } from "../entry-lock.ts";
import { canonicalUrl } from "../git-url.ts";
import type { WellKnownLockEntry } from "../lockfile.ts";
import { StagedCopy } from "../staged-copy.ts";

export type CopySkills = WellKnownLockEntry["skills"];

export interface CurrentWellKnown {
  url: string;
  skills: CopySkills;
  contentHash: Digest;
  /** A layer with `signers`: who signed the index (docs/provenance.md). */
  signer?: WellKnownLockEntry["signer"];
  /** A signed index's publication time, for the rollback check (signed-index.ts). */
  published?: string;
}

/** Whether a copy's `skills` are exactly those a layer's `skills:` names (any, without one). */
export function holdsSkills(skills: Readonly<Record<string, unknown>>, only: readonly string[] | undefined): boolean {
  return only === undefined || Object.keys(skills).sort().join(",") === [...only].sort().join(",");
}

/** The cache folder's name for an index URL: `<host>-<port>-<12 hex of the URL's SHA-256>`. */
export function wellKnownCacheKey(indexUrl: string): string {
  const canonical = canonicalUrl(indexUrl);
  const url = new URL(canonical);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  // An IPv6 address (`[::1]`) is named by its digits, so the name never starts with a hyphen.
  const name = url.hostname.replace(/[^A-Za-z0-9.-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "");
  const host = `${url.hostname.startsWith("[") ? "ipv6-" : ""}${name}`.slice(0, 200);
  return `${host}-${port}-${shortHash(canonical, 12)}`;
}

export class WellKnownCache {
  readonly dir: string;

  constructor(indexUrl: string, home?: string) {
    this.dir = join(cacheRoot(home), "well-known", wellKnownCacheKey(indexUrl));
  }

  copyDir(hash: Digest): string {
    return join(this.dir, "copies", digestHex(hash));
  }

  sealFile(hash: Digest): string {
    return join(this.dir, "seals", `${digestHex(hash)}.json`);
  }

  get currentFile(): string {
    return join(this.dir, "current.json");
  }

  async current(): Promise<CurrentWellKnown | undefined> {
    try {
      const data = JSON.parse(await readFile(this.currentFile, "utf8")) as CurrentWellKnown;
      return parseDigest(data.contentHash) && typeof data.skills === "object" ? data : undefined;
    } catch {
      return undefined;
    }
  }

  setCurrent(current: CurrentWellKnown): Promise<void> {
    return writeFileAtomically(this.currentFile, `${JSON.stringify(current, null, 2)}\n`);
  }

  async lock(options?: LockOptions): Promise<HeldLock | undefined> {
    await mkdir(this.dir, { recursive: true });
    return acquireLock(join(this.dir, "lock"), options);
  }

  /** A fresh staging folder for a copy (StagedCopy.place puts it under `copyDir`). */
  stage(): StagedCopy {
    return new StagedCopy(join(this.dir, "copies"));
  }
}
