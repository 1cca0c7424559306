/**
 * Every skill a load found, audited (src/audit/): what `skill-central audit` reports, and what
 * `audit.layers: all` keeps from being served. One entry per skill file the load served or kept,
 * shadowed copies included (a layer's skill is judged as its layer holds it). A folder skill is
 * its published files (`SKILL.md` first, the examples file left out, as clients get them); a
 * YAML skill is its file. Results come from the cache by content, so a warm run reads nothing.
 */
import { readFileSync } from "node:fs";
import { dirname, relative, sep } from "node:path";
import { auditSkill, type AuditedSkill, type SkillContent } from "../audit/audit-skill.ts";
import type { AuditCache } from "../audit/cache.ts";
import { fileSha256 } from "../audit/digest.ts";
import type { Finding } from "../audit/scan.ts";
import { readFolderFile } from "../storage/folder-file.ts";
import type { LoadResult } from "./load-skills.ts";
import type { SkillRecord } from "./record.ts";

export interface RecordAudit extends AuditedSkill {
  id: string;
  layer: string;
  /** The skill file (absolute): its `SKILL.md`, or its YAML file. */
  path: string;
  /** The folder finding paths are relative to (absolute): the skill's folder, or its layer's. */
  base: string;
  /** Set when the folder's files could not be listed (over a limit): only `SKILL.md` was audited. */
  partial?: string;
}

const toPosix = (path: string) => path.split(sep).join("/");

function folderContent(record: SkillRecord): { content: SkillContent; partial?: string } {
  const dir = dirname(record.path);
  const read = record.files?.read();
  if (read && "files" in read) {
    // Published as SKILL.md whatever its case on disk (`skill.md`): the digest is of the published tree.
    const onDisk = new Map(read.files.map((f, i) => [i === 0 ? "SKILL.md" : f.path, f]));
    return {
      content: {
        kind: "folder",
        files: [...onDisk].map(([path, f]) => ({ path, sha256: f.sha256 })),
        readFile: (path) => {
          const got = readFolderFile(dir, onDisk.get(path)!);
          return got.ok ? got.bytes : undefined;
        },
      },
    };
  }
  const bytes = readBytes(record.path);
  return {
    content: { kind: "folder", files: [{ path: "SKILL.md", sha256: fileSha256(bytes) }], readFile: () => bytes },
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
  loaded: LoadResult,
  cache: AuditCache | undefined,
  wantDigest: boolean | ((id: string, findings: readonly Finding[]) => boolean),
): RecordAudit[] {
  const dirs = new Map(loaded.config.layers.map((l) => [l.name, l.dir]));
  const audits: RecordAudit[] = [];
  for (const record of loaded.records) {
    if (record.outcome === "skipped" || !record.skill) continue;
    const folder = record.skill.format === "skill-md";
    const layerDir = dirs.get(record.layer.name) ?? dirname(record.path);
    let content: SkillContent;
    let partial: string | undefined;
    if (folder) ({ content, partial } = folderContent(record));
    else {
      const bytes = readBytes(record.path);
      const path = toPosix(relative(layerDir, record.path));
      content = { kind: "file", files: [{ path, sha256: fileSha256(bytes) }], readFile: () => bytes };
    }
    audits.push({
      id: record.skill.id,
      layer: record.layer.name,
      path: record.path,
      base: folder ? dirname(record.path) : layerDir,
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
