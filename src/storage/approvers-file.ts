/**
 * The approvers' allowed_signers file (`policy.approvers`, docs/governance.md), read for the
 * admin log: the keys whose approve, block and unblock count. A file that cannot be read, or
 * lists no usable key, is a reason (fit to print), never an exception.
 */
import { readFile } from "node:fs/promises";
import { parseAllowedSigners, type AllowedSigners } from "./allowed-signers.ts";
import { displayPath } from "./display-path.ts";

export async function readApprovers(
  file: string | undefined,
  cwd: string,
): Promise<AllowedSigners | { problem: string }> {
  if (file === undefined)
    return { problem: "no approvers file: set policy.approvers (or pass --signers) to verify the log" };
  const shown = displayPath(file, { cwd });
  try {
    const signers = parseAllowedSigners(await readFile(file, "utf8"));
    if (signers.signers.length === 0) return { problem: `the approvers file ${shown} lists no usable key` };
    return signers;
  } catch (error) {
    const code = (error as { code?: string }).code;
    return {
      problem: `the approvers file ${shown} ${code === "ENOENT" ? "does not exist" : `cannot be read (${code})`}`,
    };
  }
}
