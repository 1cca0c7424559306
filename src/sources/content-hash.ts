/**
 * `contentHash`: what a layer's copy must contain, independent of git and of the file system.
 *
 * SHA-256 over the files sorted by path (compared as UTF-8 bytes), each framed as
 *
 *     <path as UTF-8> 0x00 <byte length in decimal ASCII> 0x00 <the file's bytes>
 *
 * with `path` relative to the layer's folder and `/`-separated. The length makes the framing
 * unambiguous (no file can end where another's path begins). File modes, timestamps and empty
 * folders are not part of it. A `Digest` (storage/digest.ts): `sha256:<64 lowercase hex digits>`.
 */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { type Digest, digestFromHex, type HashInput, sha256Hex } from "../storage/digest.ts";

const encoder = new TextEncoder();

export interface HashedFile {
  path: string;
  bytes: Uint8Array;
}

function byUtf8(a: { key: Uint8Array }, b: { key: Uint8Array }): number {
  return Buffer.compare(a.key, b.key);
}

/** The hash of a set of files given in any order. */
export function contentHash(files: readonly HashedFile[]): Digest {
  const sorted = files.map((f) => ({ key: encoder.encode(f.path), bytes: f.bytes })).sort(byUtf8);
  const parts: HashInput[] = [];
  for (const { key, bytes } of sorted) parts.push(key, `\0${bytes.length}\0`, bytes);
  return digestFromHex(sha256Hex(parts));
}

/** Every file under `dir`, relative and `/`-separated; throws on anything but files and folders. */
export async function listCopy(dir: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push(path);
      else throw new Error(`${path} is not a regular file`);
    }
  };
  if (!(await lstat(dir)).isDirectory()) throw new Error(`${dir} is not a folder`);
  await walk("");
  return files;
}

/** The content hash of a copy on disk, read in parallel. */
export async function hashCopy(dir: string): Promise<Digest> {
  const paths = await listCopy(dir);
  const files = await Promise.all(
    paths.map(async (path) => ({ path, bytes: await Bun.file(join(dir, path)).bytes() })),
  );
  return contentHash(files);
}
