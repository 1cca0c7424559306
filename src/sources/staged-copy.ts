/**
 * How every layer copy reaches its place in the cache, git layers' (materialise.ts) and url
 * layers' (well-known/) alike: written under a temporary `.tmp-…` name beside its final place,
 * made read-only, and only then renamed into place and sealed (verify-copy.ts). A process killed
 * at any point leaves no folder under a copy's name; the next writer removes the leftovers
 * (cache-entry.ts). A git commit's files are written at once; a url layer's skill by skill, as
 * each is downloaded and checked, so no layer is ever held in memory whole.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Digest } from "../storage/digest.ts";
import { hashCopy } from "./content-hash.ts";
import { removeTree } from "./remove-tree.ts";
import { forgetCopy, sealCopy, verifyCopy } from "./verify-copy.ts";

/** Files written at once: thousands of open files would hit the descriptor limit. */
const BATCH = 64;

export class StagedCopy {
  /** Every folder written into, the staging folder included: made read-only at `place`. */
  private readonly folders: Set<string>;

  readonly dir: string;
  private made = false;

  /** A staging folder in `copies` (`tag` helps a person tell leftovers apart), made on first use. */
  constructor(copies: string, tag = "") {
    this.dir = join(copies, `.tmp-${tag}${process.pid}-${randomUUID().slice(0, 8)}`);
    this.folders = new Set([this.dir]);
  }

  private async make(): Promise<void> {
    if (!this.made) await mkdir(this.dir, { recursive: true });
    this.made = true;
  }

  /** Writes `files` (paths relative, `/`-separated, not written before) read-only. */
  async write(files: readonly { path: string; bytes: Uint8Array }[]): Promise<void> {
    await this.make();
    const added: string[] = [];
    for (const file of files)
      for (let d = dirname(join(this.dir, file.path)); d.length > this.dir.length; d = dirname(d))
        if (!this.folders.has(d)) {
          this.folders.add(d);
          added.push(d);
        }
    for (const folder of added.sort()) await mkdir(folder, { recursive: true });
    for (let i = 0; i < files.length; i += BATCH)
      await Promise.all(
        files.slice(i, i + BATCH).map((f) => writeFile(join(this.dir, f.path), f.bytes, { flag: "wx", mode: 0o444 })),
      );
  }

  /** The contentHash of what was written (content-hash.ts). */
  async contentHash(): Promise<Digest> {
    await this.make();
    return hashCopy(this.dir);
  }

  /** Removes the staging folder (after a refusal, or when the copy already exists). */
  async discard(): Promise<void> {
    if (this.made) await removeTree(this.dir);
  }

  /**
   * Puts the staged files in place as the copy `dir` holding `contentHash`, sealed with `seal`:
   * a verified copy already there is kept (and the staging folder removed), a damaged one replaced.
   */
  async place(dir: string, seal: string, contentHash: string): Promise<void> {
    const existing = await verifyCopy(dir, seal, contentHash);
    if (existing.state === "ok") return this.discard();
    if (existing.state === "mismatch") {
      // On disk, but not what it should hold: damaged after it was written.
      forgetCopy(dir);
      await removeTree(dir);
    }
    await this.make();
    try {
      // Deepest first, so each folder is still writable while its children are finished.
      for (const folder of [...this.folders].sort((a, b) => b.length - a.length)) await chmod(folder, 0o555);
      await rename(this.dir, dir);
    } catch (error) {
      await this.discard();
      // Another writer (without our lock: a lock judged stale) finished the same copy first.
      if (existsSync(dir) && (await verifyCopy(dir, seal, contentHash)).state === "ok") return;
      throw error;
    }
    // Hashed from the bytes written just now: sealed with the stamps the files have on disk.
    await sealCopy(dir, seal, contentHash);
  }
}
