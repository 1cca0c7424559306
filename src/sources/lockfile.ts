/**
 * `skill-central.lock`, beside the project config and committed with it: the commit and content
 * hash each git layer of the project serves. It holds no timestamps of its own (a signed index's
 * `published` is the index's) and is written sorted, so two people who lock the same commits
 * write the same bytes, and a diff shows only what moved.
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
 *
 * A layer from an Agent Skills well-known index (docs/well-known.md) is locked beside them, told
 * apart by having `skills` instead of `commit`: the index URL it was read from, each skill's
 * digest (and version), and the contentHash of the copy made from them.
 *
 * A layer with `signers` (docs/provenance.md) has a `signer` too: `{ "principal": "…",
 * "fingerprint": "SHA256:…" }`, who signed the locked commit or index; a url layer's also has
 * `published`, the time its signed index says it was published, so that `sync --update` can
 * refuse an older one.
 *
 *     "vendor": { "url": "https://…/agent-skills/index.json",
 *                 "skills": { "pdf": { "digest": "sha256:<64 hex>", "version": "1.0.0" } },
 *                 "contentHash": "sha256:<64 hex>" }
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import { type Digest, DIGEST_FORM, parseDigest } from "../storage/digest.ts";
import { parseYamlDocument } from "../storage/parse-document.ts";
import { writeFileAtomically } from "./cache-entry.ts";
import { readSigner, writeSigner, type Signer } from "./lock-signer.ts";

export const LOCKFILE_NAME = "skill-central.lock";
export const LOCKFILE_VERSION = 1;

export interface LockEntry {
  url: string;
  ref: string;
  path: string;
  commit: string;
  contentHash: string;
  /** A layer with `signers`: who signed the commit (src/sources/signatures.ts). */
  signer?: Signer;
}

/** A well-known layer's entry: the index URL, each skill's artifact digest, the copy's hash. */
export interface WellKnownLockEntry {
  url: string;
  skills: Record<string, { digest: Digest; version?: string }>;
  contentHash: Digest;
  /** A layer with `signers`: who signed the index. */
  signer?: Signer;
  /** A layer with `signers`: when the signed index says it was published (rollback protection). */
  published?: string;
}

export interface Lockfile {
  file: string;
  /** By layer name. */
  entries: Map<string, LockEntry>;
  /** Well-known layers' entries, by layer name. */
  wellKnown: Map<string, WellKnownLockEntry>;
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
  const lock: Lockfile = { file, entries: new Map(), wellKnown: new Map(), readable: true };
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
  const refuse = (name: string, bad: string) =>
    report({
      severity: "error",
      code: "lockfile",
      file,
      position: locate(["layers", name], true),
      message: `entry "${name}" ${bad}`,
      hint: "the entry is ignored: run skill-central sync to write it again",
    });
  for (const [name, value] of Object.entries(layers as Record<string, unknown>)) {
    const entry = value as Record<string, unknown> | null;
    if (entry && typeof entry === "object" && "skills" in entry && !("commit" in entry)) {
      const read = readWellKnownEntry(entry);
      if (typeof read === "string") refuse(name, read);
      else lock.wellKnown.set(name, read);
      continue;
    }
    const bad = gitEntryProblem(entry);
    if (bad) {
      refuse(name, bad);
      continue;
    }
    lock.entries.set(name, gitEntry(entry!));
  }
  return lock;
}

/** A checked git layer's entry (see `gitEntryProblem`), with only its known fields. */
function gitEntry(entry: Record<string, unknown>): LockEntry {
  const e = entry as Record<(typeof FIELDS)[number], string>;
  const signer = readSigner(entry.signer);
  return {
    url: e.url,
    ref: e.ref,
    path: e.path,
    commit: e.commit,
    contentHash: e.contentHash,
    ...(signer && { signer }),
  };
}

/** What is wrong with a git layer's entry, if anything. */
function gitEntryProblem(entry: Record<string, unknown> | null): string | undefined {
  return !entry || typeof entry !== "object"
    ? "must be an object"
    : FIELDS.find((f) => typeof entry[f] !== "string")
      ? `needs ${FIELDS.join(", ")} (strings)`
      : !COMMIT.test(entry.commit as string)
        ? "has a commit that is not a full hex object id"
        : !parseDigest(entry.contentHash)
          ? `has a contentHash that is not ${DIGEST_FORM}`
          : undefined;
}

/** A well-known entry, or what is wrong with it. */
function readWellKnownEntry(entry: Record<string, unknown>): WellKnownLockEntry | string {
  const { url, skills, contentHash } = entry;
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) return "needs a url (http:// or https://)";
  const hash = parseDigest(contentHash);
  if (!hash) return `has a contentHash that is not ${DIGEST_FORM}`;
  if (!skills || typeof skills !== "object" || Array.isArray(skills)) return '"skills" must be an object';
  const read: WellKnownLockEntry["skills"] = {};
  for (const [skill, value] of Object.entries(skills as Record<string, unknown>)) {
    const v = value as { digest?: unknown; version?: unknown } | null;
    const digest = parseDigest(v?.digest);
    if (!digest) return `has skill "${skill}" without a digest ${DIGEST_FORM}`;
    read[skill] = { digest, ...(typeof v!.version === "string" && { version: v!.version }) };
  }
  const signer = readSigner(entry.signer);
  const published = typeof entry.published === "string" ? entry.published : undefined;
  return { url, skills: read, contentHash: hash, ...(signer && { signer }), ...(published && { published }) };
}

function serialiseWellKnown(e: WellKnownLockEntry): WellKnownLockEntry {
  const skills: WellKnownLockEntry["skills"] = {};
  for (const name of Object.keys(e.skills).sort()) {
    const { digest, version } = e.skills[name]!;
    skills[name] = { digest, ...(version !== undefined && { version }) };
  }
  return {
    url: e.url,
    skills,
    contentHash: e.contentHash,
    ...(e.signer && { signer: writeSigner(e.signer) }),
    ...(e.published !== undefined && { published: e.published }),
  };
}

/** The lockfile's exact text for `entries`: sorted by layer name, fields in a fixed order. */
export function serialiseLockfile(
  entries: ReadonlyMap<string, LockEntry>,
  wellKnown: ReadonlyMap<string, WellKnownLockEntry> = new Map(),
): string {
  const layers: Record<string, LockEntry | WellKnownLockEntry> = {};
  for (const name of [...new Set([...entries.keys(), ...wellKnown.keys()])].sort()) {
    const e = entries.get(name);
    layers[name] = e
      ? {
          url: e.url,
          ref: e.ref,
          path: e.path,
          commit: e.commit,
          contentHash: e.contentHash,
          ...(e.signer && { signer: writeSigner(e.signer) }),
        }
      : serialiseWellKnown(wellKnown.get(name)!);
  }
  return `${JSON.stringify({ lockfileVersion: LOCKFILE_VERSION, layers }, null, 2)}\n`;
}

/** Writes the lockfile if its text changes (atomically); returns whether it did. */
export async function writeLockfile(
  file: string,
  entries: ReadonlyMap<string, LockEntry>,
  wellKnown?: ReadonlyMap<string, WellKnownLockEntry>,
): Promise<boolean> {
  const text = serialiseLockfile(entries, wellKnown);
  const before = await readFile(file, "utf8").catch(() => undefined);
  if (before === text) return false;
  await writeFileAtomically(file, text);
  return true;
}

export function sameSource(entry: LockEntry, source: { url: string; ref: string; path: string }): boolean {
  return entry.url === source.url && entry.ref === source.ref && entry.path === source.path;
}
