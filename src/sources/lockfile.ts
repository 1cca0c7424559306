import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import { parseYamlDocument } from "../storage/parse-document.ts";
import { writeFileAtomically } from "./cache-entry.ts";
import { CONTENT_HASH_PATTERN } from "./content-hash.ts";

/**
 * `skill-central.lock`, beside the project config and committed with it: the commit and content
 * hash each git layer of the project serves. It holds no timestamps and is written sorted, so
 * two people who lock the same commits write the same bytes, and a diff shows only what moved.
 *
 *     {
 *       "lockfileVersion": 1,
 *       "layers": {
 *         "team": { "url": "https://…/skills.git", "ref": "main", "path": "skills",
 *                   "commit": "<40 hex>", "contentHash": "sha256:<64 hex>" }
 *       }
 *     }
 *
 * `url` is the configured URL without credentials (src/sources/git-url.ts `canonicalUrl`).
 */
export const LOCKFILE_NAME = "skill-central.lock";
export const LOCKFILE_VERSION = 1;

export interface LockEntry {
  url: string;
  ref: string;
  path: string;
  commit: string;
  contentHash: string;
}

export interface Lockfile {
  file: string;
  /** By layer name. */
  entries: Map<string, LockEntry>;
  /** False when the file exists but could not be used (then `entries` is empty). */
  readable: boolean;
}

const FIELDS = ["url", "ref", "path", "commit", "contentHash"] as const;
const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The lockfile that belongs with a project config file. */
export function lockfilePath(projectConfig: string): string {
  return join(dirname(projectConfig), LOCKFILE_NAME);
}

/**
 * Reads a lockfile; a missing one is empty. A broken one (a merge conflict left in it, a hand
 * edit) is reported with its position and treated as empty; a bad entry is reported and skipped.
 */
export async function readLockfile(file: string, report: (d: Diagnostic) => void = () => {}): Promise<Lockfile> {
  const lock: Lockfile = { file, entries: new Map(), readable: true };
  if (!existsSync(file)) return lock;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    report({
      severity: "error",
      code: "lockfile",
      file,
      message: `cannot read the lockfile (${String(error)})`,
      hint: "until it can be read, its git layers are not served",
    });
    return { ...lock, readable: false };
  }
  // JSON.parse on the start-up path (~0.1 ms); the precise parser only to place a message.
  let data: { lockfileVersion?: unknown; layers?: unknown } | null;
  const precise = () => parseYamlDocument({ file, text });
  const locate = (path: (string | number)[], key = false) => {
    const parsed = precise();
    return parsed.ok ? (key ? parsed.doc.locateKey(path) : parsed.doc.locate(path)) : undefined;
  };
  const fail = (message: string, position?: Diagnostic["position"]): Lockfile => {
    report({
      severity: "error",
      code: "lockfile",
      file,
      ...(position && { position }),
      message,
      hint: "fix it (a merge conflict?) or delete it and run skill-central sync; until then its git layers are not served",
    });
    return { ...lock, readable: false };
  };
  try {
    data = JSON.parse(text) as typeof data;
  } catch (error) {
    const parsed = precise();
    const reason = parsed.ok ? String((error as Error).message) : parsed.diagnostic.message.replace(/^skipped: /, "");
    return fail(`the lockfile is not valid JSON: ${reason}`, parsed.ok ? undefined : parsed.diagnostic.position);
  }
  if (!data || typeof data !== "object" || Array.isArray(data))
    return fail("the lockfile must be a JSON object", { line: 1, column: 1 });
  if (data.lockfileVersion !== LOCKFILE_VERSION) {
    return fail(
      `lockfileVersion ${JSON.stringify(data.lockfileVersion)} is not one this version reads (${LOCKFILE_VERSION})`,
      locate(["lockfileVersion"]),
    );
  }
  const layers = data.layers ?? {};
  if (typeof layers !== "object" || Array.isArray(layers) || layers === null)
    return fail(`"layers" must be an object`, locate(["layers"]));
  for (const [name, value] of Object.entries(layers as Record<string, unknown>)) {
    const entry = value as Record<string, unknown> | null;
    const bad =
      !entry || typeof entry !== "object"
        ? "must be an object"
        : FIELDS.find((f) => typeof entry[f] !== "string")
          ? `needs ${FIELDS.join(", ")} (strings)`
          : !COMMIT.test(entry.commit as string)
            ? "has a commit that is not a full hex object id"
            : !CONTENT_HASH_PATTERN.test(entry.contentHash as string)
              ? "has a contentHash that is not sha256:<64 hex digits>"
              : undefined;
    if (bad) {
      report({
        severity: "error",
        code: "lockfile",
        file,
        position: locate(["layers", name], true),
        message: `entry "${name}" ${bad}`,
        hint: "the entry is ignored: run skill-central sync to write it again",
      });
      continue;
    }
    const e = entry as Record<(typeof FIELDS)[number], string>;
    lock.entries.set(name, { url: e.url, ref: e.ref, path: e.path, commit: e.commit, contentHash: e.contentHash });
  }
  return lock;
}

/** The lockfile's exact text for `entries`: sorted by layer name, fields in a fixed order. */
export function serialiseLockfile(entries: ReadonlyMap<string, LockEntry>): string {
  const layers: Record<string, LockEntry> = {};
  for (const name of [...entries.keys()].sort()) {
    const e = entries.get(name)!;
    layers[name] = { url: e.url, ref: e.ref, path: e.path, commit: e.commit, contentHash: e.contentHash };
  }
  return `${JSON.stringify({ lockfileVersion: LOCKFILE_VERSION, layers }, null, 2)}\n`;
}

/** Writes the lockfile if its text changes (atomically); returns whether it did. */
export async function writeLockfile(file: string, entries: ReadonlyMap<string, LockEntry>): Promise<boolean> {
  const text = serialiseLockfile(entries);
  const before = await readFile(file, "utf8").catch(() => undefined);
  if (before === text) return false;
  await writeFileAtomically(file, text);
  return true;
}

export function sameSource(entry: LockEntry, source: { url: string; ref: string; path: string }): boolean {
  return entry.url === source.url && entry.ref === source.ref && entry.path === source.path;
}
