import { ArchiveRefused, type UnpackedFile } from "../../storage/archive-entries.ts";
import type { CopySkills } from "./cache.ts";
import { FetchRefused, fetchBytes } from "./fetch.ts";
import { sha256Digest } from "./format.ts";
import { IndexRefused, parseIndex, type ResolvedEntry } from "./parse-index.ts";
import { skillFolderFiles } from "./unpack.ts";

/**
 * One well-known layer's skills, fetched and checked in memory: the index, then each wanted
 * artifact, whose digest is compared with the index's (and the lock's, when restoring a locked
 * layer) before it is unpacked; every entry of an archive is checked as it is read. Nothing is
 * written here: the caller writes the copy only when every skill passed, so a refused artifact
 * is never served, and the copy served before stays.
 */

/** A layer that cannot be taken: one line per problem, each naming its skill and the reason. */
export class LayerRefused extends Error {
  override readonly name = "LayerRefused";
  constructor(readonly problems: readonly string[]) {
    super(problems.join("; "));
  }
}

export interface DownloadOptions {
  /** Only these skills (a layer's `skills:`). */
  only?: readonly string[];
  /** Restoring a lock: exactly these skills, with these digests. */
  expect?: CopySkills;
  token?: string;
  timeoutMs: number;
  /** A layer with `signers`: checks the index's bytes before anything else (signed-index.ts). */
  verifyIndex?: (index: Uint8Array, indexUrl: string) => Promise<void>;
}

export interface Downloaded {
  /** Every file, as `<skill>/<path>`. */
  files: UnpackedFile[];
  skills: CopySkills;
  /** Entries of the index left out (an unknown type, a bad field), each naming the skill. */
  notes: string[];
}

const INDEX_MAX_BYTES = 8 * 1024 * 1024;
const ARTIFACT_MAX_BYTES = 16 * 1024 * 1024;
/** Files in one layer, as for a git layer's commit. */
const MAX_LAYER_FILES = 20_000;
const PARALLEL = 8;

async function fetchSkill(entry: ResolvedEntry, options: DownloadOptions): Promise<UnpackedFile[]> {
  const fetched = await fetchBytes(entry.href, {
    timeoutMs: options.timeoutMs,
    maxBytes: ARTIFACT_MAX_BYTES,
    ...(options.token !== undefined && { token: options.token }),
  });
  const actual = sha256Digest(fetched.bytes);
  if (actual !== entry.digest)
    throw new ArchiveRefused(
      `digest mismatch: the index says ${entry.digest.slice(0, 19)}…, the artifact is ${actual.slice(0, 19)}… (tampered with, or changed since the index was written)`,
    );
  return skillFolderFiles(entry, fetched.bytes, fetched.contentType).map((f) => ({
    path: `${entry.name}/${f.path}`,
    bytes: f.bytes,
  }));
}

/** Which entries to take, or the problems that refuse the layer. */
function choose(
  entries: Map<string, ResolvedEntry>,
  skipped: Map<string, string>,
  options: DownloadOptions,
): { wanted: ResolvedEntry[]; problems: string[] } {
  const names = options.expect ? Object.keys(options.expect) : (options.only ?? [...entries.keys()]);
  const wanted: ResolvedEntry[] = [];
  const problems: string[] = [];
  for (const name of [...names].sort()) {
    const entry = entries.get(name);
    const locked = options.expect?.[name];
    if (!entry)
      problems.push(`skill "${name}": ${skipped.has(name) ? `refused: ${skipped.get(name)}` : "not in the index"}`);
    else if (locked && locked.digest !== entry.digest)
      problems.push(
        `skill "${name}": the index now gives ${entry.digest.slice(0, 19)}…, not the locked ${locked.digest.slice(0, 19)}… (the publisher changed it; \`skill-central sync --update\` takes the new one)`,
      );
    else wanted.push(entry);
  }
  return { wanted, problems };
}

export async function downloadLayer(indexUrl: string, options: DownloadOptions): Promise<Downloaded> {
  let parsed: ReturnType<typeof parseIndex>;
  try {
    const index = await fetchBytes(indexUrl, {
      timeoutMs: options.timeoutMs,
      maxBytes: INDEX_MAX_BYTES,
      ...(options.token !== undefined && { token: options.token }),
    });
    await options.verifyIndex?.(index.bytes, index.url);
    parsed = parseIndex(index.bytes, index.url);
  } catch (error) {
    if (error instanceof FetchRefused || error instanceof IndexRefused) throw new LayerRefused([error.message]);
    throw error;
  }
  const { wanted, problems } = choose(parsed.entries, parsed.skipped, options);
  const files: UnpackedFile[] = [];
  const skills: CopySkills = {};
  for (let i = 0; i < wanted.length; i += PARALLEL) {
    const batch = wanted.slice(i, i + PARALLEL);
    const results = await Promise.allSettled(batch.map((entry) => fetchSkill(entry, options)));
    results.forEach((result, j) => {
      const entry = batch[j]!;
      if (result.status === "rejected") {
        const error = result.reason as Error;
        if (!(error instanceof ArchiveRefused || error instanceof FetchRefused)) throw error;
        problems.push(`skill "${entry.name}": refused: ${error.message}`);
        return;
      }
      files.push(...result.value);
      skills[entry.name] = { digest: entry.digest, ...(entry.version !== undefined && { version: entry.version }) };
    });
  }
  if (files.length > MAX_LAYER_FILES) problems.push(`the layer has more than ${MAX_LAYER_FILES} files`);
  if (problems.length > 0) throw new LayerRefused(problems);
  const notes =
    options.only || options.expect ? [] : [...parsed.skipped].map(([n, why]) => `skill "${n}" skipped: ${why}`);
  return { files, skills, notes };
}
