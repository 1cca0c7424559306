import { stat } from "node:fs/promises";

/** What identifies a file's content without reading it. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
}

export async function stampOf(file: string): Promise<FileStamp | undefined> {
  try {
    const info = await stat(file);
    return { size: info.size, mtimeMs: info.mtimeMs };
  } catch {
    return undefined;
  }
}
