import { generateKeyPairSync } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fingerprint, parsePrivateKey, signMessage } from "../../src/storage/sshsig.ts";

/**
 * Real OpenSSH keys and signatures for the provenance tests (docs/provenance.md), made with the
 * system's `ssh-keygen`. Only the interoperability checks need it: `hasSshKeygen` lets them skip
 * on a machine without OpenSSH, while everything skill-central does itself runs everywhere (an
 * ed25519 key is then made in process, and commits are signed in process as git would sign them).
 */

/** `TEST_WITHOUT_SSH_KEYGEN=1` runs the tests as on a machine without OpenSSH. */
export const SSH_KEYGEN = process.env.TEST_WITHOUT_SSH_KEYGEN
  ? undefined
  : ["/usr/bin/ssh-keygen", "/usr/local/bin/ssh-keygen"].find((p) => existsSync(p));
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

/** SSH `string`s concatenated. */
function wire(...parts: (Uint8Array | string)[]): Buffer {
  return Buffer.concat(
    parts.flatMap((p) => {
      const bytes = typeof p === "string" ? Buffer.from(p) : Buffer.from(p);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      return [length, bytes];
    }),
  );
}

/** An unencrypted OpenSSH ed25519 key pair written without ssh-keygen. */
function makeKeyInProcess(file: string, comment: string): TestKey {
  const jwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  const pub = Buffer.from(jwk.x!, "base64url");
  const seed = Buffer.from(jwk.d!, "base64url");
  const blob = wire("ssh-ed25519", pub);
  const check = Buffer.from([1, 2, 3, 4]);
  let section = Buffer.concat([check, check, wire("ssh-ed25519", pub, Buffer.concat([seed, pub]), comment)]);
  for (let pad = 1; section.length % 8 !== 0; pad++) section = Buffer.concat([section, Buffer.from([pad])]);
  const count = Buffer.alloc(4);
  count.writeUInt32BE(1);
  const body = Buffer.concat([Buffer.from("openssh-key-v1\0"), wire("none", "none", ""), count, wire(blob, section)]);
  const lines = body
    .toString("base64")
    .match(/.{1,70}/g)!
    .join("\n");
  writeFileSync(file, `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines}\n-----END OPENSSH PRIVATE KEY-----\n`, {
    mode: 0o600,
  });
  const publicLine = `ssh-ed25519 ${blob.toString("base64")} ${comment}`;
  writeFileSync(`${file}.pub`, `${publicLine}\n`);
  return { file, publicLine, fingerprint: fingerprint(new Uint8Array(blob)) };
}

/** A raw commit object with git's SSH signature header added, signed in process (namespace `git`). */
export function signCommitObject(raw: string, keyFile: string): string {
  const signature = signMessage(parsePrivateKey(readFileSync(keyFile, "utf8")), new TextEncoder().encode(raw), "git");
  const end = raw.indexOf("\n\n");
  const header = `gpgsig ${signature.trimEnd().split("\n").join("\n ")}`;
  return `${raw.slice(0, end)}\n${header}${raw.slice(end)}`;
}

/** A new key pair in `dir` (no passphrase unless given); without ssh-keygen, an ed25519 key made in process. */
export function makeKey(dir: string, name: string, kind: KeyKind = "ed25519", passphrase = ""): TestKey {
  const file = join(dir, name);
  if (!hasSshKeygen) {
    if (kind !== "ed25519" || passphrase) throw new Error("without ssh-keygen, only unencrypted ed25519 keys are made");
    return makeKeyInProcess(file, `${name}@test`);
  }
  const made = sshKeygen(["-q", ...KEYGEN_ARGS[kind], "-N", passphrase, "-C", `${name}@test`, "-f", file]);
  if (made.code !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
  const fingerprint = sshKeygen(["-l", "-E", "sha256", "-f", `${file}.pub`]).stdout.split(" ")[1]!;
  return { file, publicLine: readFileSync(`${file}.pub`, "utf8").trim(), fingerprint };
}

/** One allowed-signers line for `key`. */
export function signerLine(principal: string, key: TestKey, options = ""): string {
  return `${principal} ${options ? `${options} ` : ""}${key.publicLine}\n`;
}
