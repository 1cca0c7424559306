/**
 * What `approve`, `block` and `unblock` share (docs/governance.md): the key that signs, checked against the
 * approvers' allowed_signers file before anything is written (a key it does not list records
 * nothing), a reason that is required, and the signed entry appended to the admin log in the
 * store every server of the team reads.
 */
import { readFile } from "node:fs/promises";
import type { LoadResult } from "../../load/load-skills.ts";
import { ADMIN_NAMESPACE, type AdminAction, type AdminEntry } from "../../storage/admin-log-record.ts";
import { appendAdminEntry } from "../../storage/admin-log-store.ts";
import { allowedSigner } from "../../storage/allowed-signers.ts";
import { readApprovers } from "../../storage/approvers-file.ts";
import { displayPath } from "../../storage/display-path.ts";
import { parsePrivateKey, SshSigError } from "../../storage/sshsig.ts";
import { shownStore, storeLocation } from "../../storage/store-location.ts";
import { visibleLine } from "../../visible-text.ts";
import { UsageError } from "./options.ts";

/** Why an admin action was refused before anything was written (fit to print). */
export class ActionRefused extends Error {
  override readonly name = "ActionRefused";
}

export interface ActionRequest {
  action: AdminAction;
  skill: string;
  digest?: string;
  files?: readonly (readonly [string, string])[];
  reason: string | undefined;
  keyFile: string | undefined;
}

/** An entry appended to the admin log, and the store as messages name it. */
export interface RecordedAction {
  entry: AdminEntry;
  store: string;
}

/** recordAction for a command: a refusal is said on stderr and gives undefined; anything else is thrown. */
export async function recordOrRefuse(
  ctx: { err(text: string): void },
  loaded: LoadResult,
  cwd: string,
  request: ActionRequest,
): Promise<RecordedAction | undefined> {
  try {
    return await recordAction(loaded, cwd, request);
  } catch (error) {
    if (!(error instanceof ActionRefused)) throw error;
    ctx.err(`${visibleLine(error.message)}\n`);
    return undefined;
  }
}

/** Signs and appends the entry; the entry and the store as messages name it, or ActionRefused. */
async function recordAction(loaded: LoadResult, cwd: string, request: ActionRequest): Promise<RecordedAction> {
  const reason = request.reason?.trim() ?? "";
  if (reason === "") throw new UsageError(`${request.action} needs --reason TEXT: every admin action says why`);
  if (request.keyFile === undefined)
    throw new UsageError(`${request.action} needs --key KEYFILE: the SSH private key of an approver that signs it`);
  const approvers = await readApprovers(loaded.config.approvers, cwd);
  if ("problem" in approvers)
    throw new ActionRefused(
      `${approvers.problem.replace(" (or pass --signers) to verify the log", "")}: nothing was recorded`,
    );
  const shownKey = displayPath(request.keyFile, { cwd });
  let keyText: string;
  try {
    keyText = await readFile(request.keyFile, "utf8");
  } catch (error) {
    throw new ActionRefused(`cannot read the key ${shownKey} (${(error as { code?: string }).code ?? "error"})`);
  }
  let key: ReturnType<typeof parsePrivateKey>;
  try {
    key = parsePrivateKey(keyText);
  } catch (error) {
    if (error instanceof SshSigError) throw new ActionRefused(`cannot sign with ${shownKey}: ${error.message}`);
    throw error;
  }
  const at = Date.now();
  const signer = allowedSigner(approvers, key.publicKey.blob, ADMIN_NAMESPACE, at);
  if ("refused" in signer)
    throw new ActionRefused(
      `the key ${shownKey} may not act here: ${signer.refused} (policy.approvers); nothing was recorded`,
    );
  const setting = loaded.config.stateStore!;
  const location = storeLocation(setting.store, setting.passwordEnv);
  const entry = await appendAdminEntry(
    location,
    {
      at,
      principal: signer.principal,
      action: request.action,
      skill: request.skill,
      ...(request.digest !== undefined && { digest: request.digest }),
      ...(request.files !== undefined && { files: request.files }),
      reason,
    },
    key,
  );
  return { entry, store: shownStore(location) };
}
