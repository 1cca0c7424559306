/** Benchmark corpora under bench/.corpus/, generated once per (n, seed, generator source) and reused. */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RACY_WINDOW_MS } from "../../src/load/startup-index.ts";
import { generateCorpus, type CorpusInfo } from "../corpus.ts";

export interface Corpus {
  dir: string;
  info: CorpusInfo;
  reused: boolean;
}

const GENERATOR = join(import.meta.dir, "..", "corpus.ts");
const STAMP = ".generator-sha256";

/** A change to the generator invalidates every stored corpus, so a reused one is never stale. */
function generatorHash(): string {
  return createHash("sha256").update(readFileSync(GENERATOR)).digest("hex");
}

function readInfo(dir: string): CorpusInfo {
  return JSON.parse(readFileSync(join(dir, "corpus.json"), "utf8")) as CorpusInfo;
}

export async function ensureCorpus(root: string, n: number, seed: number): Promise<Corpus> {
  const dir = join(root, `n${n}-seed${seed}`);
  const hash = generatorHash();
  const stamp = join(dir, STAMP);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === hash && existsSync(join(dir, "corpus.json"))) {
    const info = readInfo(dir);
    if (info.n === n && info.seed === seed) return { dir, info, reused: true };
  }
  const info = await generateCorpus(dir, n, seed);
  writeFileSync(stamp, hash);
  return { dir, info, reused: false };
}

/**
 * When a corpus's files become old enough for the server's start-up index: it leaves out files
 * modified within its "racy" window (they could change again without their stamp changing), so a
 * session started sooner after generating would parse them again and a warm HOME would not be warm.
 * corpus.json is the last file the generator writes.
 */
export function settledAt(dir: string): number {
  return statSync(join(dir, "corpus.json")).mtimeMs + RACY_WINDOW_MS + 250;
}

/** Waits (once, for all of them) until every corpus is settled; returns how long that took. */
export async function waitUntilSettled(dirs: readonly string[]): Promise<number> {
  const wait = Math.max(0, ...dirs.map((d) => settledAt(d) - Date.now()));
  if (wait > 0) await Bun.sleep(wait);
  return wait;
}
