import { closeSync, constants, openSync, readFileSync, readSync } from "node:fs";
import { isEmbedded } from "./fs-state.ts";

const CHUNK = 64 * 1024;
let buffer: Buffer | undefined;

/**
 * The lowercase hex SHA-256 of a file, read in 64 KiB chunks so that even a large asset never
 * sits in memory whole. Opened without blocking, like every file a layer holds.
 */
export function sha256File(path: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  // The binary's built-in skills cannot be opened, only read whole (they are our own, small files).
  if (isEmbedded(path)) return hasher.update(readFileSync(path)).digest("hex");
  buffer ??= Buffer.allocUnsafe(CHUNK);
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      hasher.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hasher.digest("hex");
}
