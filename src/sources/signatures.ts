/**
 * Who published what a remote layer serves (docs/provenance.md): a git layer's commit must carry
 * an SSH signature (git's `gpg.format=ssh`: namespace `git`, over the commit object without its
 * `gpgsig` header) and a url layer's `index.json` an `index.json.sig` (namespace `agent-skills`),
 * by a key of the layer's `signers` file, allowed for that namespace at that time. Checked in
 * process (src/storage/sshsig.ts), by `sync` and the background refresh, before a copy is made
 * or a lock written; each refusal says which: unsigned, another key, a revoked key (the layer's
 * `revoked` file, as git's `gpg.ssh.revocationFile`), or not matching.
 */

import { readFile } from "node:fs/promises";
import { allowedSigner, parseAllowedSigners, type AllowedSigners, type Signer } from "../storage/allowed-signers.ts";
import { displayPath } from "../storage/display-path.ts";
import { parseRevokedKeys, revokedAt, type RevokedKeys } from "../storage/revoked-keys.ts";
import { fingerprint, parseSignature, SshSigError, verifySignature } from "../storage/sshsig.ts";
import { git } from "./git.ts";

export type { Signer } from "../storage/allowed-signers.ts";

/** The SSHSIG namespace git signs commits in. */
export const GIT_NAMESPACE = "git";
/** The SSHSIG namespace of a signed well-known index (pinned: `ssh-keygen -Y verify -n agent-skills`). */
export const INDEX_NAMESPACE = "agent-skills";
/** The signature file beside every `index.json` (pinned). */
export const INDEX_SIGNATURE_FILE = "index.json.sig";

/** What a layer with `signers` will not serve, and why (fit to print). */
export class SignatureRefused extends Error {
  override readonly name = "SignatureRefused";
}

/** The layer's allowed-signers file, read; refused when it cannot be read or trusts no key. */
export async function readSignersFile(file: string): Promise<AllowedSigners> {
  const shown = displayPath(file, { cwd: process.cwd() });
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new SignatureRefused(
      `the signers file ${shown} ${code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? String(error)})`}`,
    );
  }
  const signers = parseAllowedSigners(text);
  const problems = signers.problems.map((p) => `line ${p.line}: ${p.message}`).join("; ");
  if (signers.signers.length === 0)
    throw new SignatureRefused(`the signers file ${shown} lists no usable key${problems ? ` (${problems})` : ""}`);
  return signers;
}

/** A layer's `revoked` file, read (src/storage/revoked-keys.ts); refused when it cannot be read or used. */
export async function readRevokedFile(file: string): Promise<Revoked> {
  const shown = displayPath(file, { cwd: process.cwd() });
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new SignatureRefused(
      `the revoked-keys file ${shown} ${code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? String(error)})`}`,
    );
  }
  try {
    return { ...parseRevokedKeys(bytes), shown };
  } catch (error) {
    if (error instanceof SshSigError)
      throw new SignatureRefused(`the revoked-keys file ${shown} cannot be used: ${error.message}`);
    throw error;
  }
}

/** A revoked-keys file's keys, and its name as messages show it. */
export interface Revoked extends RevokedKeys {
  shown: string;
}

/** The files a layer's trust comes from (absolute paths, as the config resolves them). */
export interface TrustFiles {
  signers?: string | undefined;
  revoked?: string | undefined;
}

/** Checks `armoured` over `message`; the signer, or SignatureRefused saying `what` failed and why. */
function check(
  what: string,
  armoured: string,
  message: Uint8Array,
  namespace: string,
  time: number,
  signers: AllowedSigners,
  revoked: Revoked | undefined,
): Signer {
  let signature: ReturnType<typeof parseSignature>;
  try {
    signature = parseSignature(armoured);
  } catch (error) {
    if (error instanceof SshSigError)
      throw new SignatureRefused(`${what}'s signature cannot be used: ${error.message}`);
    throw error;
  }
  const line = revoked && revokedAt(revoked, signature.publicKey.blob);
  if (line !== undefined)
    throw new SignatureRefused(
      `${what} is signed by ${fingerprint(signature.publicKey.blob)}, a key revoked in ${revoked!.shown} (line ${line}); this layer refuses its signatures`,
    );
  const allowed = allowedSigner(signers, signature.publicKey.blob, namespace, time);
  if ("refused" in allowed) throw new SignatureRefused(`${what} is ${allowed.refused}`);
  let good: boolean;
  try {
    good = verifySignature(signature, message, namespace);
  } catch (error) {
    if (error instanceof SshSigError) throw new SignatureRefused(`${what}'s signature is invalid: ${error.message}`);
    throw error;
  }
  if (!good)
    throw new SignatureRefused(
      `${what}'s signature by ${allowed.principal} (${allowed.fingerprint}) is invalid: it does not match the content (changed after signing?)`,
    );
  return allowed;
}

/** A raw commit object split into the signed payload, its SSH/PGP signature and committer time. */
export function splitSignedCommit(raw: Uint8Array): { payload: Uint8Array; signature?: string; time: number } {
  const text = Buffer.from(raw).toString("latin1");
  const end = text.indexOf("\n\n");
  const headers = (end < 0 ? text : text.slice(0, end)).split("\n");
  const body = end < 0 ? "" : text.slice(end);
  const kept: string[] = [];
  let signature: string[] | undefined;
  // Within a signature header: its lines are the signature ("sig"), or removed ("drop": a second one).
  let within: "sig" | "drop" | undefined;
  for (const line of headers) {
    if (within !== undefined && line.startsWith(" ")) {
      if (within === "sig") signature!.push(line.slice(1));
      continue;
    }
    const name = line.slice(0, line.indexOf(" "));
    within = undefined;
    if (name === "gpgsig" || name === "gpgsig-sha256") {
      // The first signature counts; another (for the other object format) is not signed either.
      within = signature === undefined ? "sig" : "drop";
      if (within === "sig") signature = [line.slice(name.length + 1)];
      continue;
    }
    kept.push(line);
  }
  const committer = kept.find((l) => l.startsWith("committer "));
  const seconds = Number(/ (\d+) [+-]\d{4}$/.exec(committer ?? "")?.[1] ?? Number.NaN);
  return {
    payload: new Uint8Array(Buffer.from(kept.join("\n") + body, "latin1")),
    ...(signature && { signature: `${signature.join("\n")}\n` }),
    time: seconds * 1000,
  };
}

/**
 * Checks that `commit` (in the bare repository `gitDir`) is signed by a key of `signers`, allowed
 * for namespace `git` at the commit's committer time (as git passes it to ssh-keygen).
 */
export async function verifyCommit(
  gitDir: string,
  commit: string,
  signers: AllowedSigners,
  signersFile: string,
  revoked?: Revoked,
): Promise<Signer> {
  const short = commit.slice(0, 12);
  const raw = await git(`cannot read commit ${short}`, ["cat-file", "commit", commit], { gitDir });
  const { payload, signature, time } = splitSignedCommit(raw);
  if (signature === undefined)
    throw new SignatureRefused(
      `commit ${short} is not signed; this layer serves only commits signed by a key in ${displayPath(signersFile, { cwd: process.cwd() })}`,
    );
  return check(`commit ${short}`, signature, payload, GIT_NAMESPACE, time, signers, revoked);
}

/** Checks an index's signature file text (undefined: the host has none) over the index's bytes. */
export function verifyIndex(
  indexUrl: string,
  index: Uint8Array,
  signature: string | undefined,
  signers: AllowedSigners,
  revoked?: Revoked,
): Signer {
  const what = `the index ${indexUrl}`;
  if (signature === undefined)
    throw new SignatureRefused(`${what} is not signed (no ${INDEX_SIGNATURE_FILE} beside it); this layer needs one`);
  return check(what, signature, index, INDEX_NAMESPACE, Date.now(), signers, revoked);
}

/** A git layer's check: with `signers`, the commit's signer (or SignatureRefused); without, undefined. */
export async function commitSigner(gitDir: string, commit: string, trust: TrustFiles): Promise<Signer | undefined> {
  if (trust.signers === undefined) return undefined;
  const revoked = trust.revoked === undefined ? undefined : await readRevokedFile(trust.revoked);
  return verifyCommit(gitDir, commit, await readSignersFile(trust.signers), trust.signers, revoked);
}
