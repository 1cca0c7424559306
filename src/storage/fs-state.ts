/** What a path is (a folder, inside the binary's embedded files, a layer's folder missing), without throwing. */
import { statSync } from "node:fs";

/** True for an existing folder; false for anything else, including a path that cannot be read. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Inside a compiled binary the built-in skills live in Bun's embedded, read-only file system:
 * it answers `stat`, `readdir` and whole-file reads, but not `open` or `realpath`, and never
 * changes.
 */
export function isEmbedded(path: string): boolean {
  return path.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(path);
}

export type LayerDirState = "ok" | "missing" | "not-a-directory";

export function layerDirState(dir: string): LayerDirState {
  try {
    return statSync(dir).isDirectory() ? "ok" : "not-a-directory";
  } catch {
    return "missing";
  }
}
