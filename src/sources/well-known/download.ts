/**
 * One well-known layer's skills, fetched, checked and written skill by skill into a staged copy
 * (staged-copy.ts): the index, then each wanted artifact, whose digest is compared with the
 * index's (and the lock's, when restoring a locked layer) before it is unpacked; every entry of
 * an archive is checked as it is read. A skill's files reach the disk as soon as it passed, so a
 * layer is never held in memory whole: at most `PARALLEL` artifacts are. The layer as a whole is
 * bounded like a git layer's commit (`URL_LAYER_LIMITS`). The caller puts the staged copy in
 * place only when every skill passed, so a refused artifact is never served, and the copy served
 * before stays.
 */
import { ArchiveRefused, type UnpackedFile } from "../../storage/archive-entries.ts";
import { digestOf, shortDigest } from "../../storage/digest.ts";
import { describeFsError } from "../../storage/fs-errors.ts";
import { MAX_SKILL_FILE_BYTES } from "../../storage/read.ts";
import type { StagedCopy } from "../staged-copy.ts";
import { DEFAULT_LIMITS } from "../tree-entries.ts";
import type { CopySkills } from "./cache.ts";
import { type BearerToken, FetchRefused, fetchBytes } from "./fetch.ts";
import { IndexRefused, parseIndex, type ResolvedEntry } from "./parse-index.ts";
import { skillFolderFiles } from "./unpack.ts";

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
  auth?: BearerToken;
  timeoutMs: number;
  /** A layer with `signers`: checks the index's bytes before anything else (signed-index.ts). */
  verifyIndex?: (index: Uint8Array, indexUrl: string) => Promise<void>;
}

export interface Downloaded {
  skills: CopySkills;
  /** Entries of the index left out (an unknown type, a bad field), each naming the skill. */
  notes: string[];
}

/** The largest index read. */
export const INDEX_MAX_BYTES = 8 * 1024 * 1024;
/** The largest archive downloaded (a lone `SKILL.md`: `MAX_SKILL_FILE_BYTES`). */
export const ARTIFACT_MAX_BYTES = 16 * 1024 * 1024;
/** A url layer as a whole, as a git layer's commit (tree-entries.ts): files, and bytes unpacked. */
export const URL_LAYER_LIMITS = { maxFiles: DEFAULT_LIMITS.maxFiles, maxBytes: DEFAULT_LIMITS.maxTotalBytes };
/** Artifacts fetched (and held) at once. */
const PARALLEL = 4;

/** The index at `indexUrl`, parsed; throws `LayerRefused` when it cannot be read or used. */
export async function fetchIndex(
  indexUrl: string,
  options: Pick<DownloadOptions, "auth" | "timeoutMs" | "verifyIndex">,
): Promise<ReturnType<typeof parseIndex>> {
  try {
    const index = await fetchBytes(indexUrl, {
      timeoutMs: options.timeoutMs,
      maxBytes: INDEX_MAX_BYTES,
      ...(options.auth !== undefined && { auth: options.auth }),
    });
    // A signed layer's index is verified before a byte of it is parsed (docs/provenance.md).
    await options.verifyIndex?.(index.bytes, index.url);
    return parseIndex(index.bytes, index.url);
  } catch (error) {
    if (error instanceof FetchRefused || error instanceof IndexRefused) throw new LayerRefused([error.message]);
    throw error;
  }
}

async function fetchSkill(entry: ResolvedEntry, options: DownloadOptions): Promise<UnpackedFile[]> {
  const fetched = await fetchBytes(entry.href, {
    timeoutMs: options.timeoutMs,
    maxBytes: entry.type === "skill-md" ? MAX_SKILL_FILE_BYTES : ARTIFACT_MAX_BYTES,
    ...(options.auth !== undefined && { auth: options.auth }),
  });
  const actual = digestOf(fetched.bytes);
  if (actual !== entry.digest)
    throw new ArchiveRefused(
      `digest mismatch: the index says ${shortDigest(entry.digest)}, the artifact is ${shortDigest(actual)} (tampered with, or changed since the index was written)`,
    );
  return skillFolderFiles(entry, fetched.bytes, fetched.contentType).map((f) => ({
    path: `${entry.name}/${f.path}`,
    bytes: f.bytes,
  }));
}

function lockedProblem(
  name: string,
  entry: ResolvedEntry | undefined,
  skipped: Map<string, string>,
  locked?: { digest: string },
): string | undefined {
  if (!entry) return `skill "${name}": ${skipped.has(name) ? `refused: ${skipped.get(name)}` : "not in the index"}`;
  if (locked && locked.digest !== entry.digest)
    return `skill "${name}": the index now gives ${shortDigest(entry.digest)}, not the locked ${shortDigest(locked.digest)} (the publisher changed it; \`skill-central sync --update\` takes the new one)`;
  return undefined;
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
    const problem = lockedProblem(name, entries.get(name), skipped, options.expect?.[name]);
    if (problem !== undefined) problems.push(problem);
    else wanted.push(entries.get(name)!);
  }
  return { wanted, problems };
}

/** Counts a layer's files and bytes as its skills come in, and writes them while nothing was refused. */
class LayerWriter {
  readonly problems: string[] = [];
  readonly skills: CopySkills = {};
  private files = 0;
  private bytes = 0;
  /** Over a layer limit: nothing more is fetched. */
  full = false;

  constructor(private readonly staged: StagedCopy) {}

  async take(entry: ResolvedEntry, files: readonly UnpackedFile[]): Promise<void> {
    this.files += files.length;
    for (const f of files) this.bytes += f.bytes.length;
    if (this.files > URL_LAYER_LIMITS.maxFiles || this.bytes > URL_LAYER_LIMITS.maxBytes) {
      this.full = true;
      this.problems.push(
        `the layer is over its limit of ${URL_LAYER_LIMITS.maxFiles} files and ${URL_LAYER_LIMITS.maxBytes} bytes unpacked (reached at skill "${entry.name}"); nothing more was fetched`,
      );
      return;
    }
    if (this.problems.length === 0) {
      try {
        await this.staged.write(files);
      } catch (error) {
        // Past the archive rules, a name this file system still refuses: that skill is refused.
        if ((error as NodeJS.ErrnoException).code === undefined) throw error;
        this.problems.push(
          `skill "${entry.name}": refused: its files cannot be written here: ${describeFsError(error)}`,
        );
        return;
      }
    }
    this.skills[entry.name] = { digest: entry.digest, ...(entry.version !== undefined && { version: entry.version }) };
  }
}

/** Fetches the layer into `staged`; throws `LayerRefused` naming every skill refused and why. */
export async function downloadLayer(
  indexUrl: string,
  options: DownloadOptions,
  staged: StagedCopy,
): Promise<Downloaded> {
  const parsed = await fetchIndex(indexUrl, options);
  const { wanted, problems } = choose(parsed.entries, parsed.skipped, options);
  const layer = new LayerWriter(staged);
  for (const problem of problems) layer.problems.push(problem);
  for (let i = 0; i < wanted.length && !layer.full; i += PARALLEL) {
    const batch = wanted.slice(i, i + PARALLEL);
    const results = await Promise.allSettled(batch.map((entry) => fetchSkill(entry, options)));
    for (const [j, result] of results.entries()) {
      const entry = batch[j]!;
      if (result.status === "fulfilled") await layer.take(entry, result.value);
      else if (result.reason instanceof ArchiveRefused || result.reason instanceof FetchRefused)
        layer.problems.push(`skill "${entry.name}": refused: ${result.reason.message}`);
      else throw result.reason;
      if (layer.full) break;
    }
  }
  if (layer.problems.length > 0) throw new LayerRefused(layer.problems);
  const notes =
    options.only || options.expect ? [] : [...parsed.skipped].map(([n, why]) => `skill "${n}" skipped: ${why}`);
  return { skills: layer.skills, notes };
}
