import { statSync } from "node:fs";
import { stat } from "node:fs/promises";

/** True for an existing folder; false for anything else, including a path that cannot be read. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export type LayerDirState = "ok" | "missing" | "not-a-directory";

export async function layerDirState(dir: string): Promise<LayerDirState> {
  try {
    return (await stat(dir)).isDirectory() ? "ok" : "not-a-directory";
  } catch {
    return "missing";
  }
}
