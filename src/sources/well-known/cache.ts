import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { cacheRoot } from "../../storage/cache-dir.ts";
import type { UnpackedFile } from "../../storage/archive-entries.ts";
import { writeFileAtomically } from "../cache-entry.ts";
import { contentHash } from "../content-hash.ts";
import { acquireLock, type HeldLock, type LockOptions } from "../entry-lock.ts";
import { cacheKey } from "../git-url.ts";
import type { WellKnownLockEntry } from "../lockfile.ts";
import { writeReadOnly } from "../materialise.ts";
import { removeTree } from "../remove-tree.ts";
import { forgetCopy, sealCopy, verifyCopy } from "../verify-copy.ts";

/**
 * One well-known index's place in the user's cache, beside the git layers' and managed the same
 * way (a lock per entry, read-only copies renamed into place, seals: src/sources/verify-copy.ts):
 *
 *     <cache>/well-known/<host-path-hash>/
 *       lock                       held while anything below is written
 *       copies/<contentHash hex>/  a layer folder: one `<skill>/` folder per skill
 *       seals/<contentHash hex>.json
 *       current.json               for layers without a lock entry: what they serve now
 */
export type CopySkills = WellKnownLockEntry["skills"];

export interface CurrentWellKnown {
  url: string;
  skills: CopySkills;
  contentHash: string;
  /** A layer with `signers`: who signed the index (docs/provenance.md). */
  signer?: WellKnownLockEntry["signer"];
}

const hex = (hash: string) => hash.slice("sha256:".length);

export class WellKnownCache {
  readonly dir: string;

  constructor(indexUrl: string, home?: string) {
    this.dir = join(cacheRoot(home), "well-known", cacheKey(indexUrl));
  }

  copyDir(hash: string): string {
    return join(this.dir, "copies", hex(hash));
  }

  sealFile(hash: string): string {
    return join(this.dir, "seals", `${hex(hash)}.json`);
  }

  get currentFile(): string {
    return join(this.dir, "current.json");
  }

  async current(): Promise<CurrentWellKnown | undefined> {
    try {
      const data = JSON.parse(await readFile(this.currentFile, "utf8")) as CurrentWellKnown;
      return typeof data.contentHash === "string" && typeof data.skills === "object" ? data : undefined;
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

  /** The copy of `files`, written read-only and renamed into place unless a verified one exists. Returns its hash. */
  async writeCopy(files: readonly UnpackedFile[]): Promise<string> {
    const hash = contentHash(files);
    const dir = this.copyDir(hash);
    const seal = this.sealFile(hash);
    const existing = await verifyCopy(dir, seal, hash);
    if (existing.state === "ok") return hash;
    if (existing.state === "mismatch") {
      forgetCopy(dir);
      await removeTree(dir);
    }
    await mkdir(join(this.dir, "copies"), { recursive: true });
    const temporary = join(this.dir, "copies", `.tmp-${process.pid}-${randomUUID().slice(0, 8)}`);
    try {
      await writeReadOnly(temporary, files);
      await rename(temporary, dir);
    } catch (error) {
      await removeTree(temporary);
      if (!(existsSync(dir) && (await verifyCopy(dir, seal, hash)).state === "ok")) throw error;
    }
    await sealCopy(dir, seal, hash);
    return hash;
  }
}
