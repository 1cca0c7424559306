/**
 * SHA-256 digests, and their two text forms. Bare hex (`sha256Hex`) is what files are hashed to
 * (the loader's records, the start-up index, the audit's cache keys), and `shortHash`, its first
 * few digits, names things in the user's cache. Everything a client, a lockfile or an index sees
 * is a `Digest`: `sha256:` and 64 lowercase hex digits (the MCP skills extension, the Agent
 * Skills well-known index, `skill-central.lock`'s digests and contentHash). Both forms are built,
 * read and taken apart here only, so audit records and signatures take the same one.
 *
 * One API, Bun's `SHA256`, chosen by measurement (bench/hash.ts, Bun 1.4.4, this 2-core machine):
 * a 40-byte cache name's input hashes in 152 ns one-shot against 413 ns with `Bun.CryptoHasher`
 * and 656 ns with node:crypto's `createHash`, 1,000 files of 2 KB (the loader's common case) in
 * 1.37 ms against 1.71 and 2.29 ms; from 10 KB up all three run at memory speed (10 KB ~6 µs,
 * 1 MB ~585 µs, whole or in 64 KiB updates). A fresh process's first hash costs 64 µs against
 * 6.3 ms for node:crypto, nearly all of it loading that module (which the server still loads at
 * start for sshsig.ts and `randomUUID`, so that part is no start-up gain today).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { isEmbedded } from "./fs-state.ts";
import { stampOfStats, type FileStamp } from "./stamp.ts";

/**
 * `sha256:<64 lowercase hex>`: made by `digestOf` or `digestFromHex`, read by `parseDigest`,
 * taken apart by `digestHex` and `shortDigest`. A plain `string` is not one until parsed.
 */
export type Digest = `sha256:${string}`;

/** The text form, for a message that describes it. */
export const DIGEST_FORM = "sha256:<64 lowercase hex digits>";
const PREFIX = "sha256:";
/** The whole text of a digest; `DIGEST_PATTERN.source` is a config schema's `pattern` for one. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
const HEX = /^[0-9a-f]{64}$/;

/** Text (hashed as its UTF-8) or bytes. */
export type HashInput = string | Uint8Array;

/**
 * The lowercase hex SHA-256 of `input`, or of `parts` one after another (a framing of several
 * fields or files, hashed without first joining them into one buffer).
 */
export function sha256Hex(input: HashInput | readonly HashInput[]): string {
  if (!Array.isArray(input)) return Bun.SHA256.hash(input as HashInput, "hex");
  const hasher = new Bun.SHA256();
  for (const part of input as readonly HashInput[]) hasher.update(part);
  return hasher.digest("hex");
}

/** The 32 bytes of `input`'s SHA-256, for a comparison in constant time (`timingSafeEqual`). */
export function sha256Bytes(input: HashInput): Buffer {
  return Bun.SHA256.hash(input, Buffer.allocUnsafe(32)) as Buffer;
}

/**
 * The first `length` hex digits of `text`'s SHA-256: what keeps apart names in the user's cache
 * (a project, a repository, an index URL, a copy's path) and other short stable ids. A name
 * once given must stay the same (a changed one orphans users' caches), so each caller keeps the
 * length it has always used; test/unit/digest.test.ts holds each name to a known value.
 */
export function shortHash(text: string, length: number): string {
  return sha256Hex(text).slice(0, length);
}

/** The digest of `bytes`. */
export function digestOf(bytes: HashInput): Digest {
  return `sha256:${sha256Hex(bytes)}`;
}

/** The digest whose hex (a loader's record, a hasher's output) is `hex`; throws on anything else. */
export function digestFromHex(hex: string): Digest {
  if (!HEX.test(hex)) throw new Error(`not a SHA-256 in hex: ${JSON.stringify(hex.slice(0, 80))}`);
  return `sha256:${hex}`;
}

/** `text` as a digest, or undefined when it is not exactly `sha256:<64 lowercase hex>`. */
export function parseDigest(text: unknown): Digest | undefined {
  return typeof text === "string" && DIGEST_PATTERN.test(text) ? (text as Digest) : undefined;
}

/** The 64 hex digits alone (a folder name, an ETag). */
export function digestHex(digest: Digest): string {
  return digest.slice(PREFIX.length);
}

/** The first 12 hex digits, for a message: `sha256:0123456789ab…`. */
export function shortDigest(digest: string): string {
  return `${digest.slice(0, PREFIX.length + 12)}…`;
}

const CHUNK = 64 * 1024;
let buffer: Buffer | undefined;

/**
 * A file's lowercase hex SHA-256, read in 64 KiB chunks so that even a large asset never sits in
 * memory whole (opened without blocking and without following a link, like every file a layer
 * holds), with the stamp of the very version hashed (taken from the open file, so a
 * replace between a stat and the read cannot pair one version's stamp with another's digest).
 * Throws when the file cannot be read or is no longer a regular file.
 */
export function hashFileVersion(path: string): FileStamp & { sha256: string } {
  const hasher = new Bun.SHA256();
  if (isEmbedded(path)) {
    const bytes = readFileSync(path);
    const info = statSync(path);
    return { ...stampOfStats(info), size: bytes.length, sha256: hasher.update(bytes).digest("hex") };
  }
  buffer ??= Buffer.allocUnsafe(CHUNK);
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error("not a regular file");
    let size = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      size += n;
      hasher.update(buffer.subarray(0, n));
    }
    const after = fstatSync(fd);
    // Written to while it was read: the bytes hashed may be of no one version.
    if (after.mtimeMs !== info.mtimeMs || after.size !== size) throw new Error("the file changed while it was read");
    return { ...stampOfStats(info), sha256: hasher.digest("hex") };
  } finally {
    closeSync(fd);
  }
}
