/**
 * What `board --open` hands the desktop's opener instead of the URL: the URL carries the run's
 * token, and an opener's arguments (and a browser it starts) are in the process list, which every
 * local user can read. So, as Jupyter does, the URL goes into a file only this user can read, a
 * page that goes on to it at once, and the opener gets the file's path. The file is removed when
 * the board exits.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forwardingPage } from "./access.ts";

/** The file's path, or undefined when it cannot be written (the caller then hands over the URL). */
export function writeLaunchFile(url: string): string | undefined {
  try {
    // mkdtemp makes the folder 0700; the file is 0600 besides.
    const dir = mkdtempSync(join(tmpdir(), "skill-central-board-"));
    const file = join(dir, "open.html");
    writeFileSync(file, forwardingPage(url), { mode: 0o600 });
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    return file;
  } catch {
    return undefined;
  }
}
