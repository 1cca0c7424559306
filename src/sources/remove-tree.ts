/** Removing a folder that may be read-only: a verified copy, or one left half-written. */
import { chmod, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * Removes a folder that may be read-only (a copy, or one left half-written): its folders are made
 * writable first, since a file cannot be unlinked from a read-only folder.
 */
export async function removeTree(dir: string): Promise<void> {
  const open = async (path: string): Promise<void> => {
    try {
      await chmod(path, 0o755);
    } catch {
      return;
    }
    const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
    await Promise.all(entries.filter((e) => e.isDirectory()).map((e) => open(join(path, e.name))));
  };
  await open(dir);
  await rm(dir, { recursive: true, force: true });
}
