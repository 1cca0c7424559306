/**
 * A published file's bytes, exactly those its digest and size promise (registry/published-skills.ts),
 * for every reader of them: MCP's `resources/read` and the well-known route, the audit's
 * attestation of a skill (audit-attestation.ts), and `skill-central publish`. A folder's file is
 * read through `readFolderFile`, which checks it is still the file recorded; a synthesised
 * `SKILL.md` is made again (deterministic) and checked against its digest. Anything else is
 * PublishedFileUnavailable: never served otherwise than as published. Each reader says what to do
 * about it in its own terms (MCP: an internal error naming `skills/get`).
 */
import { dirname } from "node:path";
import { synthesiseSkillMd } from "../skill/skill-md/synthesise.ts";
import { digestOf } from "../storage/digest.ts";
import { readFolderFile } from "../storage/folder-file.ts";
import type { PublishedFile, PublishedSkill } from "./published-skills.ts";

/** The file's bytes are not those published: it changed on disk, or cannot be read now. */
export class PublishedFileUnavailable extends Error {
  override readonly name = "PublishedFileUnavailable";
}

/** The bytes of `file` of `skill`, as published; PublishedFileUnavailable saying why not. */
export function publishedBytes(skill: PublishedSkill, file: PublishedFile): Uint8Array {
  const { candidate } = skill;
  if (file.record) {
    const read = readFolderFile(dirname(candidate.path), file.record);
    if (read.ok) return read.bytes;
    // The skill is reloaded (and list_changed tells MCP clients), so the next read is of what is there now.
    if (read.reason === "changed") candidate.files?.stale();
    const what = read.reason === "changed" ? "changed on disk since it was published" : "cannot be read";
    throw new PublishedFileUnavailable(`${file.uri} ${what} (${read.message})`);
  }
  const bytes = Buffer.from(
    synthesiseSkillMd(candidate.skill, candidate.content.read().template, candidate.layer.name).text,
    "utf8",
  );
  if (bytes.length !== file.size || digestOf(bytes) !== file.digest)
    throw new PublishedFileUnavailable(`${file.uri} changed since it was published`);
  return bytes;
}
