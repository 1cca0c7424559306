/** Benchmark corpora under bench/.corpus/, generated once per (n, seed, generator source) and reused. */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
