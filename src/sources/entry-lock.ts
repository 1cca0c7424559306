/**
 * One writer at a time per cache entry, across processes (two IDE windows, a terminal `sync`):
 * a lock file created with O_EXCL, holding its owner's pid, host and a token.
 *
 * The lock saves duplicate work and keeps two gits out of one repository; it is not what keeps
 * the cache intact. Every write is a complete folder or file renamed into place, so even a lock
 * wrongly judged stale costs at most some repeated work, never a half-written copy.
 *
 * A lock is stale when its owner is a process of this host that no longer runs (killed, crashed),
 * or when it is older than any holder can hold it (a pid reused by another program, another host
 * sharing the folder).
 */
import { randomUUID } from "node:crypto";
import { readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";

export const MAX_HOLD_MS = 30 * 60_000;
/** A lock file with no content yet is a writer between create and write; give it this long. */
const EMPTY_GRACE_MS = 5_000;

export interface HeldLock {
  release(): Promise<void>;
}

interface Owner {
  pid: number;
  host: string;
  token: string;
}

function parseOwner(text: string): Owner | undefined {
  const [pid, host, token] = text.trim().split(" ");
  return pid && host && token && /^\d+$/.test(pid) ? { pid: Number(pid), host, token } : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as { code?: string }).code === "EPERM";
  }
}

/** Why the lock at `path` may be taken over, or undefined while its owner may still hold it. */
async function staleness(path: string, text: string): Promise<string | undefined> {
  let age: number;
  try {
    age = Date.now() - (await stat(path)).mtimeMs;
  } catch {
    return "gone";
  }
  const owner = parseOwner(text);
  if (!owner) return age > EMPTY_GRACE_MS ? "unreadable" : undefined;
  if (age > MAX_HOLD_MS) return "expired";
  if (owner.host === hostname() && !alive(owner.pid)) return `process ${owner.pid} is gone`;
  return undefined;
}

export interface LockOptions {
  /** Give up after this long (default: wait as long as a holder may hold it). 0: try once. */
  timeoutMs?: number;
  /** Called once when the lock is busy and we start waiting, with the holder's pid. */
  onWait?: (holder: string) => void;
}

/**
 * Takes the lock at `path`, waiting for its holder (polling; no lock is held long), or returns
 * undefined when `timeoutMs` passes first.
 */
export async function acquireLock(path: string, options: LockOptions = {}): Promise<HeldLock | undefined> {
  const token = randomUUID();
  const mine = `${process.pid} ${hostname()} ${token}\n`;
  const deadline = Date.now() + (options.timeoutMs ?? MAX_HOLD_MS);
  let waited = false;
  for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
    try {
      await writeFile(path, mine, { flag: "wx", mode: 0o644 });
      return { release: () => releaseLock(path, token) };
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
    }
    const text = await readFile(path, "utf8").catch(() => "");
    if (await staleness(path, text)) {
      // Move it aside only if it is still the lock we judged: another process may have taken
      // it over in the meantime. (The window between the read and the rename is microseconds.)
      const again = await readFile(path, "utf8").catch(() => undefined);
      if (again === text) {
        const aside = `${path}.stale-${token}`;
        await rename(path, aside).then(
          () => unlink(aside),
          () => {},
        );
      }
      continue;
    }
    if (Date.now() >= deadline) return undefined;
    if (!waited) {
      waited = true;
      options.onWait?.(parseOwner(text)?.pid.toString() ?? "unknown");
    }
    await Bun.sleep(delay);
  }
}

async function releaseLock(path: string, token: string): Promise<void> {
  const text = await readFile(path, "utf8").catch(() => "");
  if (parseOwner(text)?.token === token) await unlink(path).catch(() => {});
}
