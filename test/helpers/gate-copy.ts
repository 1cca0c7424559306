/** The audit gate on files as a layer copy holds them: written to a temporary folder, judged there (audit/gate.ts), removed. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { auditCopy, type GateOutcome, type GateSettings } from "../../src/audit/gate.ts";

/** Writes `files` (paths `/`-separated, relative to the copy) into a new temporary folder; returns it. */
export function writeCopy(files: readonly { path: string; bytes: Uint8Array | string }[]): string {
  const dir = mkdtempSync(join(tmpdir(), "sc-gate-"));
  for (const f of files) {
    const full = join(dir, ...f.path.split("/"));
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, f.bytes);
  }
  return dir;
}

/** The gate's outcome for a copy holding exactly `files`. */
export async function gateOn(
  files: readonly { path: string; bytes: Uint8Array | string }[],
  settings: GateSettings,
): Promise<GateOutcome> {
  const dir = writeCopy(files);
  try {
    return await auditCopy(dir, settings);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
