/** Reading one recorded file of a skill folder again, verified against what the load recorded, so what is served is what the digest promises. */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, realpathSync } from "node:fs";
import { relative, sep } from "node:path";
import { sha256Hex } from "./digest.ts";
import { describeFsError } from "./fs-errors.ts";
import { isEmbedded } from "./fs-state.ts";

/** A file of a skill folder as the loader recorded it. */
export interface RecordedFile {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  size: number;
  sha256: string;
}

export type FolderFileRead =
  | { ok: true; bytes: Uint8Array }
  /** `changed`: the file is no longer what was recorded (a reload will publish the new version). */
  | { ok: false; reason: "changed" | "unreadable"; message: string };

/** `O_NOFOLLOW`: a link put in a file's place after the load is refused, not followed. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep);
}

/**
 * One recorded file of a skill folder, read and verified: it must still be a regular file inside
 * the folder (no link on the way, even one swapped in since the load), of the recorded size and
 * SHA-256. What is served is therefore exactly what the digest promises, or nothing. Callers look
 * `file` up among a skill's recorded files, so a path from a request never reaches the disk.
 */
export function readFolderFile(dir: string, file: RecordedFile): FolderFileRead {
  const full = dir + sep + file.path.split("/").join(sep);
  let bytes: Uint8Array;
  try {
    if (isEmbedded(full)) bytes = readFileSync(full);
    else {
      if (!inside(realpathSync(full), realpathSync(dir)))
        return { ok: false, reason: "changed", message: "the file is no longer inside its skill folder" };
      const fd = openSync(full, OPEN_FLAGS);
      try {
        const info = fstatSync(fd);
        if (!info.isFile()) return { ok: false, reason: "changed", message: "the file is no longer a regular file" };
        if (info.size !== file.size)
          return { ok: false, reason: "changed", message: "the file changed since it was loaded" };
        const buffer = Buffer.allocUnsafe(file.size);
        let read = 0;
        while (read < file.size) {
          const n = readSync(fd, buffer, read, file.size - read, read);
          if (n === 0) break;
          read += n;
        }
        bytes = buffer.subarray(0, read);
      } finally {
        closeSync(fd);
      }
    }
  } catch (error) {
    return { ok: false, reason: "unreadable", message: `cannot read the file: ${describeFsError(error)}` };
  }
  if (bytes.length !== file.size || sha256Hex(bytes) !== file.sha256) {
    return { ok: false, reason: "changed", message: "the file changed since it was loaded" };
  }
  return { ok: true, bytes };
}
