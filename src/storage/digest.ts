import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { isEmbedded } from "./fs-state.ts";
import { stampOfStats, type FileStamp } from "./stamp.ts";

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
  const hasher = new Bun.CryptoHasher("sha256");
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
