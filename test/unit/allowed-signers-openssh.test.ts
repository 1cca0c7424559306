import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { matchPatternList, parseAllowedSigners } from "../../src/storage/allowed-signers.ts";
import { parsePrivateKey, signMessage } from "../../src/storage/sshsig.ts";
import { SignatureRefused, verifyIndex } from "../../src/sources/signatures.ts";
import { hasSshKeygen, makeKey, sshKeygen } from "../helpers/ssh-keys.ts";

/**
 * The allowed-signers file read as OpenSSH reads it, differentially: each crafted line (or file)
 * is given to `ssh-keygen -Y verify -I alice@example.com -n agent-skills` and to skill-central's
 * check of a signed index, and the two verdicts must be the same. Each case also records the
 * verdict OpenSSH 9.2 gives (read from its sshsig.c and misc.c, and measured), so the table
 * still checks our reader where ssh-keygen is missing, and a change of OpenSSH shows up here.
 */

const dir = mkdtempSync(join(tmpdir(), "skill-central-allowed-signers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const alice = makeKey(dir, "alice");
const message = new TextEncoder().encode('{"skills":[]}\n');
const NS = "agent-skills";
const signature = signMessage(parsePrivateKey(readFileSync(alice.file, "utf8")), message, NS);
writeFileSync(join(dir, "message.sig"), signature);

/** `{key}` in a case is alice's public key line. */
const P = "alice@example.com";
const cases: [title: string, file: string, trusted: boolean][] = [
  ["a plain line", `${P} {key}`, true],
  ["namespaces", `${P} namespaces="agent-skills" {key}`, true],
  ["namespaces, upper-case option name", `${P} NAMESPACES="agent-skills" {key}`, true],
  ["namespaces pattern", `${P} namespaces="git,agent-*" {key}`, true],
  ["namespaces not allowing it", `${P} namespaces="git" {key}`, false],
  [
    "a repeated namespaces (OpenSSH refuses the line; the second must not win)",
    `${P} namespaces="git",namespaces="agent-skills" {key}`,
    false,
  ],
  ["a repeated namespaces, same value", `${P} namespaces="agent-skills",namespaces="agent-skills" {key}`, false],
  ["an empty namespaces allows nothing", `${P} namespaces="" {key}`, false],
  ["an unquoted namespaces", `${P} namespaces=agent-skills {key}`, false],
  ["an unterminated quote", `${P} namespaces="agent-skills {key}`, false],
  ["an escaped quote inside a value", `${P} namespaces="agent-skills,a\\"b" {key}`, true],
  ["a trailing comma", `${P} namespaces="agent-skills", {key}`, false],
  ["a leading comma (OpenSSH skips it)", `${P} ,namespaces="agent-skills" {key}`, true],
  ["a doubled comma (OpenSSH skips it)", `${P} namespaces="agent-skills",,valid-after="20200101" {key}`, true],
  ["an unknown option", `${P} bogus="1" {key}`, false],
  ["an unknown flag", `${P} no-touch-required {key}`, false],
  ["cert-authority (this key is no certificate)", `${P} cert-authority {key}`, false],
  ["cert-authority twice", `${P} cert-authority,cert-authority {key}`, false],
  ["valid-after in the past", `${P} valid-after="20200101" {key}`, true],
  ["valid-after in the future", `${P} valid-after="20990101" {key}`, false],
  ["valid-before in the future", `${P} valid-before="20990101" {key}`, true],
  ["valid-before in the past", `${P} valid-before="20200101" {key}`, false],
  [
    "a repeated valid-after (the second, in the past, must not win)",
    `${P} valid-after="20990101",valid-after="20200101" {key}`,
    false,
  ],
  [
    "a repeated valid-before (the second, in the future, must not win)",
    `${P} valid-before="20200101",valid-before="20990101" {key}`,
    false,
  ],
  ["month 13 (no roll-over)", `${P} valid-before="20991399" {key}`, false],
  ["month 13 in valid-after (no roll-over into the past)", `${P} valid-after="20001301" {key}`, false],
  ["month 00", `${P} valid-before="20990001" {key}`, false],
  ["day 32", `${P} valid-before="20990132" {key}`, false],
  ["day 00", `${P} valid-before="20990100" {key}`, false],
  ["February 30 (OpenSSH's mktime rolls it over to March)", `${P} valid-before="20990230" {key}`, true],
  ["hour 24", `${P} valid-before="209901012400" {key}`, false],
  ["hour 25", `${P} valid-before="209901012500" {key}`, false],
  ["minute 60", `${P} valid-before="209901012360" {key}`, false],
  ["second 60 (strptime allows leap seconds)", `${P} valid-before="20990101235960" {key}`, true],
  ["second 61", `${P} valid-before="20990101235961" {key}`, true],
  ["second 62", `${P} valid-before="20990101235962" {key}`, false],
  ["YYYYMMDDHHMM", `${P} valid-before="209901010000" {key}`, true],
  ["YYYYMMDDHHMMSS with Z", `${P} valid-before="20990101000000Z" {key}`, true],
  ["lower-case z", `${P} valid-before="20990101z" {key}`, true],
  ["a UTC suffix", `${P} valid-before="20990101UTC" {key}`, true],
  ["seven digits", `${P} valid-before="2099010" {key}`, false],
  ["nine digits", `${P} valid-before="209901011" {key}`, false],
  ["ten digits", `${P} valid-before="2099010100" {key}`, false],
  ["dashes", `${P} valid-before="2099-1-01" {key}`, false],
  ["a letter", `${P} valid-before="2099010a" {key}`, false],
  ["a space before a number (strptime skips it)", `${P} valid-before="2099 101" {key}`, true],
  ["an empty time", `${P} valid-after="" {key}`, false],
  ["an unquoted time", `${P} valid-after=20200101 {key}`, false],
  ["the epoch itself (OpenSSH reads 0 as unset and refuses it)", `${P} valid-after="19700101Z" {key}`, false],
  ["a second after the epoch", `${P} valid-after="19700101000001Z" {key}`, true],
  ["before the epoch", `${P} valid-after="19690101Z" {key}`, false],
  ["year 0000", `${P} valid-before="00000101Z" {key}`, false],
  ["valid-before equal to valid-after", `${P} valid-after="20200101",valid-before="20200101" {key}`, false],
  ["valid-before before valid-after", `${P} valid-after="20990101",valid-before="20200101" {key}`, false],
  ["all three options", `${P} valid-after="20200101",namespaces="agent-skills",valid-before="20990101" {key}`, true],
  ["a quoted principal", `"${P}" {key}`, true],
  ["a quoted principal with a space (it is one principal)", `"${P} bob" {key}`, false],
  ["an unterminated quoted principal", `"${P} {key}`, false],
  ["a principal list", `bob@example.com,${P} {key}`, true],
  ["a principal pattern", `*@example.com {key}`, true],
  ["a negated principal", `*@example.com,!${P} {key}`, false],
  ["tabs and a comment", `\t${P}\t{key}   the comment`, true],
  ["a CRLF line", `${P} namespaces="agent-skills" {key}\r`, true],
  ["principals alone", `${P}`, false],
  ["options but no key", `${P} namespaces="agent-skills"`, false],
  ["a bad line before a good one: the good one still counts", `${P} namespaces=x {key}\n${P} {key}`, true],
  ["a good line before a bad one", `${P} {key}\n${P} namespaces="agent-skills",namespaces="git" {key}`, true],
  [
    "a refused namespace, then a line that allows it",
    `${P} namespaces="git" {key}\n${P} namespaces="agent-skills" {key}`,
    true,
  ],
  ["a comment line", `# ${P} {key}`, false],
];

/** Our verdict: the index check `sync` makes, and the signer's line names alice. */
function ours(file: string): boolean {
  try {
    const signer = verifyIndex("index.json", message, signature, parseAllowedSigners(file));
    return matchPatternList(P, signer.principal);
  } catch (error) {
    if (error instanceof SignatureRefused) return false;
    throw error;
  }
}

function openssh(file: string): boolean {
  const allowed = join(dir, "allowed_signers");
  writeFileSync(allowed, file);
  const run = sshKeygen(["-Y", "verify", "-f", allowed, "-I", P, "-n", NS, "-s", join(dir, "message.sig")], message);
  return run.code === 0;
}

describe("allowed-signers lines: our verdict is ssh-keygen -Y verify's", () => {
  for (const [title, template, trusted] of cases) {
    test(title, () => {
      const file = `${template.replaceAll("{key}", alice.publicLine)}\n`;
      if (hasSshKeygen) expect(openssh(file)).toBe(trusted);
      expect(ours(file)).toBe(trusted);
    });
  }
});
