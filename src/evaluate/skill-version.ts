/**
 * Which version of a skill an eval ran against, as `sha256:`: its definition, its template and,
 * for a folder, each served file's own digest. A recording is kept under it, so any edit that
 * could change what the model is shown makes a replay report `needs-recording` instead of
 * replaying an answer to a skill that no longer exists.
 */
import type { Candidate } from "../registry/registry.ts";
import { sha256Hex } from "../storage/digest.ts";

export function skillVersion(candidate: Candidate): string {
  let template: unknown = null;
  try {
    template = candidate.content.read().template ?? null;
  } catch {
    // Content no longer to be had: the rest still names the version.
  }
  const read = candidate.files?.read();
  const files = read && "files" in read ? read.files.map((f) => [f.path, f.sha256]) : [];
  return `sha256:${sha256Hex(JSON.stringify([candidate.skill, template, files]))}`;
}
