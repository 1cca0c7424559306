import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Real OpenSSH keys and signatures for the provenance tests (docs/provenance.md), made with the
 * system's `ssh-keygen`. Only the interoperability checks need it: `hasSshKeygen` lets them skip
 * on a machine without OpenSSH, while everything skill-central does itself runs everywhere.
 */

export const SSH_KEYGEN = ["/usr/bin/ssh-keygen", "/usr/local/bin/ssh-keygen"].find((p) => existsSync(p));
export const hasSshKeygen = SSH_KEYGEN !== undefined;

export type KeyKind = "ed25519" | "rsa" | "ecdsa256" | "ecdsa384";
export const KEY_KINDS: readonly KeyKind[] = ["ed25519", "rsa", "ecdsa256", "ecdsa384"];

const KEYGEN_ARGS: Record<KeyKind, string[]> = {
  ed25519: ["-t", "ed25519"],
  rsa: ["-t", "rsa", "-b", "2048"],
  ecdsa256: ["-t", "ecdsa", "-b", "256"],
  ecdsa384: ["-t", "ecdsa", "-b", "384"],
};

export function sshKeygen(args: string[], stdin?: Uint8Array): { code: number; stdout: string; stderr: string } {
  const proc = Bun.spawnSync([SSH_KEYGEN!, ...args], {
    stdin: stdin ?? "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent" },
  });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

export interface TestKey {
  /** The private key file. */
  file: string;
  /** The `.pub` line: `type base64 comment`. */
  publicLine: string;
  /** `SHA256:…`, from `ssh-keygen -l`. */
  fingerprint: string;
}

/** A new key pair in `dir` (no passphrase unless given). */
export function makeKey(dir: string, name: string, kind: KeyKind = "ed25519", passphrase = ""): TestKey {
  const file = join(dir, name);
  const made = sshKeygen(["-q", ...KEYGEN_ARGS[kind], "-N", passphrase, "-C", `${name}@test`, "-f", file]);
  if (made.code !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
  const fingerprint = sshKeygen(["-l", "-E", "sha256", "-f", `${file}.pub`]).stdout.split(" ")[1]!;
  return { file, publicLine: readFileSync(`${file}.pub`, "utf8").trim(), fingerprint };
}

/** One allowed-signers line for `key`. */
export function signerLine(principal: string, key: TestKey, options = ""): string {
  return `${principal} ${options ? `${options} ` : ""}${key.publicLine}\n`;
}
