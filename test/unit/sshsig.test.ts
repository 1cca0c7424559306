import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allowedSigner, parseAllowedSigners, parseSignerTime } from "../../src/storage/allowed-signers.ts";
import {
  fingerprint,
  parsePrivateKey,
  parseSignature,
  signMessage,
  SshSigError,
  verifySignature,
} from "../../src/storage/sshsig.ts";
import { hasSshKeygen, KEY_KINDS, makeKey, signerLine, sshKeygen, type TestKey } from "../helpers/ssh-keys.ts";

/**
 * SSHSIG in process against OpenSSH itself: for each key type, our signatures verified by
 * `ssh-keygen -Y verify` and `ssh-keygen -Y sign`'s verified by us; tampering, namespaces and
 * allowed-signers options as OpenSSH reads them. Skipped only where ssh-keygen is missing.
 */

const dir = mkdtempSync(join(tmpdir(), "skill-central-sshsig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const message = new TextEncoder().encode('{"skills":[]}\n');
const NS = "agent-skills";

const keys = new Map<string, TestKey>();
const keyOf = (kind: (typeof KEY_KINDS)[number]) => {
  if (!keys.has(kind)) keys.set(kind, makeKey(dir, `key-${kind}`, kind));
  return keys.get(kind)!;
};

/** ssh-keygen's signature of `bytes` with `key` in `namespace`. */
function opensshSign(key: TestKey, bytes: Uint8Array, namespace = NS): string {
  const file = join(dir, `msg-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, bytes);
  const signed = sshKeygen(["-q", "-Y", "sign", "-f", key.file, "-n", namespace, file]);
  if (signed.code !== 0) throw new Error(signed.stderr);
  return readFileSync(`${file}.sig`, "utf8");
}

describe.skipIf(!hasSshKeygen)("SSHSIG interoperates with OpenSSH", () => {
  for (const kind of KEY_KINDS) {
    test(`${kind}: our signature is accepted by ssh-keygen -Y verify`, () => {
      const key = keyOf(kind);
      const signature = signMessage(parsePrivateKey(readFileSync(key.file, "utf8")), message, NS);
      const allowed = join(dir, `allowed-${kind}`);
      writeFileSync(allowed, signerLine("alice@example.com", key));
      writeFileSync(join(dir, `ours-${kind}.sig`), signature);
      const args = ["-Y", "verify", "-f", allowed, "-I", "alice@example.com", "-n", NS, "-s"];
      const verified = sshKeygen([...args, join(dir, `ours-${kind}.sig`)], message);
      expect(verified.stderr + verified.stdout).toContain(`Good "agent-skills" signature for alice@example.com`);
      expect(verified.code).toBe(0);
      // And ssh-keygen tells a changed message apart (the signature is not a constant).
      expect(sshKeygen([...args, join(dir, `ours-${kind}.sig`)], new TextEncoder().encode("other")).code).not.toBe(0);
    });

    test(`${kind}: ssh-keygen's signature is verified by us; a changed byte is not`, () => {
      const key = keyOf(kind);
      const signature = parseSignature(opensshSign(key, message));
      expect(fingerprint(signature.publicKey.blob)).toBe(key.fingerprint);
      expect(verifySignature(signature, message, NS)).toBe(true);
      const changed = new Uint8Array(message);
      changed[3] = changed[3]! ^ 1;
      expect(verifySignature(signature, changed, NS)).toBe(false);
    });
  }

  test("an encrypted private key is refused with a message saying what to do", () => {
    const key = makeKey(dir, "locked", "ed25519", "secret passphrase");
    expect(() => parsePrivateKey(readFileSync(key.file, "utf8"))).toThrow(/encrypted with a passphrase/);
  });
});

/** Signed in process where there is no ssh-keygen: these check our reading of signatures, not OpenSSH's. */
const signed = (namespace: string) =>
  hasSshKeygen
    ? opensshSign(keyOf("ed25519"), message, namespace)
    : signMessage(parsePrivateKey(readFileSync(keyOf("ed25519").file, "utf8")), message, namespace);

describe("SSHSIG refusals", () => {
  test("a signature made for another namespace is refused, naming both", () => {
    const signature = parseSignature(signed("file"));
    expect(() => verifySignature(signature, message, NS)).toThrow(
      'it was made for namespace "file", not "agent-skills"',
    );
  });

  test("a public key given as the signing key is refused", () => {
    expect(() => parsePrivateKey(readFileSync(`${keyOf("ed25519").file}.pub`, "utf8"))).toThrow(/public key/);
  });

  test("a signature whose body was tampered with is refused or fails, never accepted", () => {
    const armoured = signed(NS);
    const lines = armoured.split("\n");
    const last = lines.length - 3;
    lines[last] = lines[last]!.replace(/[A-Za-z]/, (c) => (c === "A" ? "B" : "A"));
    const tampered = lines.join("\n");
    let accepted = false;
    try {
      accepted = verifySignature(parseSignature(tampered), message, NS);
    } catch (error) {
      expect(error).toBeInstanceOf(SshSigError);
    }
    expect(accepted).toBe(false);
  });
});

describe("allowed-signers files", () => {
  const ed = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
  const blob = new Uint8Array(Buffer.from(ed.split(" ")[1]!, "base64"));

  test("principals, options and keys are read as OpenSSH reads them", () => {
    const read = parseAllowedSigners(
      `# team\n\nalice@example.com,*@ops.example.com namespaces="git,agent-skills",valid-after="20250101" ${ed} alice\n`,
    );
    expect(read.problems).toEqual([]);
    expect(read.signers).toHaveLength(1);
    expect(read.signers[0]).toMatchObject({
      principals: "alice@example.com,*@ops.example.com",
      namespaces: "git,agent-skills",
      validAfter: new Date(2025, 0, 1).getTime(),
      type: "ssh-ed25519",
      line: 3,
    });
  });

  test("cert-authority and unknown options refuse their line with a message; other lines count", () => {
    const read = parseAllowedSigners(`ca@example.com cert-authority ${ed}\nx@example.com bogus="1" ${ed}\nok ${ed}\n`);
    expect(read.problems).toEqual([
      { line: 1, message: "cert-authority lines are not supported: list each signer's own key" },
      { line: 2, message: 'unknown option "bogus"' },
    ]);
    expect(read.signers.map((s) => s.principals)).toEqual(["ok"]);
  });

  test("a line OpenSSH refuses is reported with why, and trusts nothing: a repeated option, an unquoted value, an impossible time", () => {
    const read = parseAllowedSigners(
      [
        `a namespaces="x",namespaces="git" ${ed}`,
        `b namespaces=git ${ed}`,
        `c valid-after="20991399" ${ed}`,
        `d valid-after="20990101",valid-before="20200101" ${ed}`,
        `e namespaces="git", ${ed}`,
        `ok ${ed}`,
      ].join("\n"),
    );
    expect(read.problems).toEqual([
      { line: 1, message: "namespaces is given twice (OpenSSH refuses such a line)" },
      { line: 2, message: 'namespaces must be quoted (namespaces="…")' },
      { line: 3, message: 'valid-after="20991399" is not a time OpenSSH reads (YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z])' },
      { line: 4, message: "valid-before is not after valid-after" },
      { line: 5, message: "the options end in a comma" },
    ]);
    expect(read.signers.map((s) => s.principals)).toEqual(["ok"]);
  });

  test("times: YYYYMMDD[Z] and YYYYMMDDHHMM[SS][Z], local unless Z", () => {
    expect(parseSignerTime("20260102Z")).toBe(Date.UTC(2026, 0, 2));
    expect(parseSignerTime("202601020304Z")).toBe(Date.UTC(2026, 0, 2, 3, 4));
    expect(parseSignerTime("20260102030405")).toBe(new Date(2026, 0, 2, 3, 4, 5).getTime());
    expect(parseSignerTime("2026-01-02")).toBeUndefined();
    expect(parseSignerTime("20260102UTC")).toBe(Date.UTC(2026, 0, 2));
    // mktime's roll-over of a day the month lacks, as OpenSSH has it; a month 13 is refused.
    expect(parseSignerTime("20250230Z")).toBe(Date.UTC(2025, 2, 2));
    expect(parseSignerTime("20251301Z")).toBeUndefined();
  });

  test("a listed key is allowed only for its namespaces and within its validity", () => {
    const read = parseAllowedSigners(
      `alice@example.com namespaces="git",valid-after="20250101Z",valid-before="20260101Z" ${ed}\n`,
    );
    const inside = Date.UTC(2025, 5, 1);
    expect(allowedSigner(read, blob, "git", inside)).toEqual({
      principal: "alice@example.com",
      fingerprint: fingerprint(blob),
    });
    expect(allowedSigner(read, blob, "agent-skills", inside)).toEqual({
      refused: expect.stringContaining('allows namespaces "git", not "agent-skills"'),
    });
    expect(allowedSigner(read, blob, "git", Date.UTC(2024, 0, 1))).toEqual({
      refused: expect.stringContaining("valid only after 2025-01-01T00:00:00Z"),
    });
    expect(allowedSigner(read, blob, "git", Date.UTC(2026, 5, 1))).toEqual({
      refused: expect.stringContaining("expired at 2026-01-01T00:00:00Z (valid-before)"),
    });
    expect(allowedSigner(read, new Uint8Array([0, 0, 0, 1, 120]), "git", inside)).toEqual({
      refused: expect.stringContaining("a key the signers file does not list"),
    });
  });

  test("namespace patterns: wildcards and negation", () => {
    const read = parseAllowedSigners(`a namespaces="agent-*,!agent-test" ${ed}\n`);
    expect(allowedSigner(read, blob, "agent-skills", 0)).toHaveProperty("principal", "a");
    expect(allowedSigner(read, blob, "agent-test", 0)).toHaveProperty("refused");
    expect(allowedSigner(read, blob, "git", 0)).toHaveProperty("refused");
  });
});
