/**
 * Every skill a load found, audited (src/audit/): what `skill-central audit` reports, and what
 * `audit.layers: all` keeps from being served. One entry per skill file the load served or kept,
 * shadowed copies included (a layer's skill is judged as its layer holds it). A folder skill is
 * its published files (`SKILL.md` first, the examples file left out, as clients get them); a
 * YAML skill is its file. Results come from the cache by content, so a warm run reads nothing.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { IGNORED_PIN_HINT, pinOf } from "../audit/allow-pins.ts";
import { auditSkill, type AuditedSkill, type SkillContent } from "../audit/audit-skill.ts";
import { type AuditCache, saveSharedSoon, sharedAuditCache } from "../audit/cache.ts";
import { reaches, RULES_BY_ID, type Severity } from "../audit/rules.ts";
import type { Finding } from "../audit/scan.ts";
import { isRemote } from "../config/layer-source.ts";
import type { ResolvedConfig } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { cacheRoot } from "../storage/cache-dir.ts";
import { sha256Hex } from "../storage/digest.ts";
import { readFolderFile } from "../storage/folder-file.ts";
import type { DigestBook, KnownDigest } from "./digest-book.ts";
import type { SkillRecord } from "./record.ts";

export interface RecordAudit extends AuditedSkill {
  id: string;
  layer: string;
  /** The skill file (absolute): its `SKILL.md`, or its YAML file. */
  path: string;
  /** The folder finding paths are relative to (absolute): the skill's folder, or its layer's. */
  base: string;
  /** The layer's folder (absolute). */
  layerDir: string;
  /** Set when the folder's files could not be listed (over a limit): only `SKILL.md` was audited. */
  partial?: string;
  /** The files judged (path and SHA-256): what an approval records, to say later what changed. */
  files: readonly { path: string; sha256: string }[];
}

const toPosix = (path: string) => path.split(sep).join("/");

/** What an audit of records may share with the load: its digest book, and a count of the files it read. */
export interface AuditRecordsOptions {
  /**
   * The load's digests (a YAML skill's file is then known by one stat when the index has its
   * version, and read only if the cache has no verdict for it); without one, each is read and hashed.
   */
  digests?: DigestBook;
  /** Counts the skill files whose bytes the audit read (none on a warm start: everything is cached by content). */
  reads?: { files: number };
}

/** A reader that counts what it reads. */
function counted(read: SkillContent["readFile"], reads: { files: number } | undefined): SkillContent["readFile"] {
  if (!reads) return read;
  return (path) => {
    reads.files++;
    return read(path);
  };
}

/**
 * A YAML skill's file: by its version's digest from the digest book when there is one (read only
 * when the cache has no verdict for that digest, and then only if it still holds those bytes),
 * else read and hashed now.
 */
function fileContent(record: SkillRecord, path: string, options: AuditRecordsOptions): SkillContent {
  const known = options.digests && knownVersion(options.digests, record.path);
  if (known) {
    return {
      kind: "file",
      files: [{ path, sha256: known.sha256 }],
      readFile: counted(() => {
        const bytes = readBytes(record.path);
        return sha256Hex(bytes) === known.sha256 ? bytes : undefined;
      }, options.reads),
    };
  }
  if (options.reads) options.reads.files++;
  const bytes = readBytes(record.path);
  return { kind: "file", files: [{ path, sha256: sha256Hex(bytes) }], readFile: () => bytes };
}

function knownVersion(digests: DigestBook, path: string): KnownDigest | undefined {
  try {
    return digests.current(path, path);
  } catch {
    return undefined;
  }
}

function folderContent(
  record: SkillRecord,
  reads: { files: number } | undefined,
): { content: SkillContent; partial?: string } {
  const dir = dirname(record.path);
  const read = record.files?.read();
  if (read && "files" in read) {
    // Published as SKILL.md whatever its case on disk (`skill.md`): the digest is of the published tree.
    const onDisk = new Map(read.files.map((f, i) => [i === 0 ? "SKILL.md" : f.path, f]));
    return {
      content: {
        kind: "folder",
        files: [...onDisk].map(([path, f]) => ({ path, sha256: f.sha256 })),
        readFile: counted((path) => {
          const got = readFolderFile(dir, onDisk.get(path)!);
          return got.ok ? got.bytes : undefined;
        }, reads),
      },
    };
  }
  if (reads) reads.files++;
  const bytes = readBytes(record.path);
  return {
    content: { kind: "folder", files: [{ path: "SKILL.md", sha256: sha256Hex(bytes) }], readFile: () => bytes },
    partial: read && "refused" in read ? read.refused : "the folder's files cannot be listed",
  };
}

function readBytes(path: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch {
    return new Uint8Array();
  }
}

/** The audit of each skill the load found, by layer (as declared), then id. */
export function auditRecords(
  loaded: { config: ResolvedConfig; records: readonly SkillRecord[] },
  cache: AuditCache | undefined,
  wantDigest: boolean | ((id: string, findings: readonly Finding[]) => boolean),
  options: AuditRecordsOptions = {},
): RecordAudit[] {
  const dirs = new Map(loaded.config.layers.map((l) => [l.name, l.dir]));
  const audits: RecordAudit[] = [];
  for (const record of loaded.records) {
    if (record.outcome === "skipped" || !record.skill) continue;
    const folder = record.skill.format === "skill-md";
    const layerDir = dirs.get(record.layer.name) ?? dirname(record.path);
    let content: SkillContent;
    let partial: string | undefined;
    if (folder) ({ content, partial } = folderContent(record, options.reads));
    else content = fileContent(record, toPosix(relative(layerDir, record.path)), options);
    audits.push({
      id: record.skill.id,
      layer: record.layer.name,
      path: record.path,
      base: folder ? dirname(record.path) : layerDir,
      layerDir,
      files: content.files.map(({ path, sha256 }) => ({ path, sha256 })),
      ...auditSkill(
        cache,
        content,
        typeof wantDigest === "boolean" ? wantDigest : (f) => wantDigest(record.skill!.id, f),
      ),
      ...(partial !== undefined && { partial }),
    });
  }
  // Layer by layer as declared, then by id: the same order whatever the folders' layout.
  const order = new Map(loaded.config.layers.map((l, i) => [l.name, i]));
  return audits.sort((a, b) => order.get(a.layer)! - order.get(b.layer)! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Rules and fix of the first finding that blocks, for a person reading a warning. */
function blockingFinding(audit: RecordAudit, block: Severity): Finding | undefined {
  return audit.findings.find((f) => reaches(f.severity, block));
}

/** What the gate in the load holds back, and how many skill files it read to decide (absent: it did not run). */
export interface HeldByAudit {
  held: ReadonlySet<string>;
  diagnostics: Diagnostic[];
  filesRead?: number;
}

/**
 * `audit.layers: all` (docs/audit.md): the skills of local layers (folders; git and url layers
 * were judged at `sync`) whose verdict reaches `audit.block`, unless an `audit.allow` entry that
 * counts for them (allow-pins.ts) pins their exact content, are not served: their paths are held back from resolution (the records stay as
 * they are, so a reload that finds them allowed serves them), each with a warning naming the
 * rule and the place, which the server logs at start and `validate` and `doctor` list. Results
 * come from the audit cache by content.
 */
export function holdBlocked(
  records: readonly SkillRecord[],
  config: ResolvedConfig,
  home: string | undefined,
  digests?: DigestBook,
): HeldByAudit {
  const held = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  const settings = config.audit;
  const reads = { files: 0 };
  if (settings?.layers !== "all" || settings.block === "never") return { held, diagnostics };
  const local = new Set(config.layers.filter((l) => !isRemote(l.source)).map((l) => l.name));
  const mine = records.filter((r) => r.outcome !== "skipped" && r.skill && local.has(r.layer.name));
  if (mine.length === 0) return { held, diagnostics, filesRead: 0 };
  const cache = sharedAuditCache(cacheRoot(home));
  const allowIds = new Set(settings.allow.map((a) => a.skill));
  const audits = auditRecords(
    { config, records: mine },
    cache,
    (id, findings) => allowIds.has(id) && findings.some((f) => reaches(f.severity, settings.block)),
    { ...(digests && { digests }), reads },
  );
  saveSharedSoon();
  const byPath = new Map(audits.map((a) => [a.path, a]));
  for (const record of mine) {
    const audit = byPath.get(record.path);
    const first = audit && blockingFinding(audit, settings.block);
    if (!audit || !first) continue;
    const { pin, ignored } = pinOf(settings.allow, audit);
    if (pin) continue;
    for (const { file, message } of ignored)
      diagnostics.push({ severity: "warning", code: "config", file, message, hint: IGNORED_PIN_HINT });
    held.add(record.path);
    diagnostics.push({
      severity: "warning",
      code: "audit-blocked",
      file: join(audit.base, ...first.file.split("/")),
      position: { line: first.line, column: first.column },
      message: `skill "${audit.id}" is not served: the audit blocks it (${first.rule}: ${first.message})`,
      hint: `${RULES_BY_ID.get(first.rule)?.fix ?? "remove it"}; or, once reviewed, pin this version in audit.allow (run skill-central audit --format json for its digest)`,
    });
  }
  return { held, diagnostics, filesRead: reads.files };
}
