import type { Diagnostic } from "../diagnostics.ts";

/** Larger files are almost certainly not hand-written skills (a log, a dump). */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

export interface SourceText {
  file: string;
  text: string;
}

export type ReadResult = { ok: true; source: SourceText } | { ok: false; diagnostic: Diagnostic };

export async function readSkillFile(file: string): Promise<ReadResult> {
  const handle = Bun.file(file);
  try {
    if (handle.size > MAX_SKILL_FILE_BYTES) {
      return {
        ok: false,
        diagnostic: {
          severity: "warning",
          code: "file-too-large",
          file,
          message: `skipped: ${handle.size} bytes is over the 1 MiB limit for a skill file`,
        },
      };
    }
    return { ok: true, source: { file, text: await handle.text() } };
  } catch (error) {
    return {
      ok: false,
      diagnostic: { severity: "warning", code: "unreadable", file, message: `skipped: cannot read file (${String(error)})` },
    };
  }
}

/** All reads in flight at once: the file system, not our loop, is the bottleneck. */
export function readSkillFiles(files: readonly string[]): Promise<ReadResult[]> {
  return Promise.all(files.map(readSkillFile));
}
