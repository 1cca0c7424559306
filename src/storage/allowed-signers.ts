/**
 * OpenSSH's allowed-signers file (ssh-keygen(1), "ALLOWED SIGNERS"): who may sign, with which
 * key, for which namespaces and when. Read as OpenSSH reads it, so one file serves `git
 * verify-commit`, `ssh-keygen -Y verify` and skill-central alike:
 *
 *     alice@example.com,*@ops.example.com namespaces="git,agent-skills" ssh-ed25519 AAAA… alice
 *     bob@example.com valid-after="20250101",valid-before="20270101Z" ssh-rsa AAAA…
 *
 * A line that cannot be read (or a `cert-authority` line: certificates are not supported) is
 * reported and trusts nothing; the rest of the file still counts.
 */

import { fingerprint, SshSigError } from "./sshsig.ts";

export interface AllowedSigner {
  /** The principals field as written: comma-separated patterns. */
  principals: string;
  /** The key's type and wire-format blob. */
  type: string;
  blob: Uint8Array;
  /** `namespaces="…"`: patterns the key may sign for (absent: any). */
  namespaces?: string;
  /** Milliseconds since the epoch. */
  validAfter?: number;
  validBefore?: number;
  line: number;
}

export interface AllowedSigners {
  signers: AllowedSigner[];
  /** Lines that trust nothing, with why. */
  problems: { line: number; message: string }[];
}

/** One whitespace-separated token (double quotes keep spaces); the rest of the line after it. */
function token(text: string): [string, string] {
  let i = 0;
  let quoted = false;
  while (i < text.length && (quoted || !/\s/.test(text[i]!))) {
    if (text[i] === '"') quoted = !quoted;
    i++;
  }
  return [text.slice(0, i), text.slice(i).trimStart()];
}

/** `YYYYMMDD[Z]` or `YYYYMMDDHHMM[SS][Z]`: local time unless it ends in Z, as OpenSSH reads it. */
export function parseSignerTime(value: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?(Z?)$/i.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h = "0", mi = "0", s = "0"] = m.slice(1, 7).map((v) => v ?? "0") as string[];
  const parts = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const time = m[7] ? Date.UTC(...parts) : new Date(...parts).getTime();
  return Number.isNaN(time) ? undefined : time;
}

/** The comma-separated options before the key; throws with the reason a line is refused. */
function readOptions(text: string, into: AllowedSigner): void {
  for (const option of text.match(/(?:[^,"]|"[^"]*")+/g) ?? []) {
    const [, name = "", raw] = /^([A-Za-z-]+)(?:=(.*))?$/.exec(option) ?? [];
    const value = raw?.replace(/^"(.*)"$/, "$1");
    const lower = name.toLowerCase();
    if (lower === "cert-authority")
      throw new SshSigError("cert-authority lines are not supported: list each signer's own key");
    if (value === undefined) throw new SshSigError(`unknown option "${option}"`);
    if (lower === "namespaces") into.namespaces = value;
    else if (lower === "valid-after" || lower === "valid-before") {
      const time = parseSignerTime(value);
      if (time === undefined) throw new SshSigError(`${lower}="${value}" is not YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z]`);
      into[lower === "valid-after" ? "validAfter" : "validBefore"] = time;
    } else throw new SshSigError(`unknown option "${name}"`);
  }
}

/** `type base64` at the start of `text`, or undefined when it is not a key. */
function readKey(text: string): { type: string; blob: Uint8Array } | undefined {
  const [type, rest] = token(text);
  const [encoded] = token(rest);
  if (!/^(ssh-|ecdsa-|sk-)[a-z0-9@.-]+$/.test(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const blob = new Uint8Array(Buffer.from(encoded, "base64"));
  const named = blob.length >= 4 ? new DataView(blob.buffer, blob.byteOffset).getUint32(0) : 0;
  if (new TextDecoder().decode(blob.subarray(4, 4 + named)) !== type) return undefined;
  return { type, blob };
}

export function parseAllowedSigners(text: string): AllowedSigners {
  const result: AllowedSigners = { signers: [], problems: [] };
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const [principals, rest] = token(line);
    const signer: AllowedSigner = {
      principals: principals.replace(/^"(.*)"$/, "$1"),
      type: "",
      blob: new Uint8Array(),
      line: index + 1,
    };
    try {
      let key = readKey(rest);
      if (!key) {
        const [options, after] = token(rest);
        readOptions(options, signer);
        key = readKey(after);
      }
      if (!key) throw new SshSigError("no key (a key type and its base64) after the principals and options");
      if (key.type.startsWith("sk-") || key.type.includes("-cert-"))
        throw new SshSigError(`keys of type ${key.type} are not supported`);
      result.signers.push({ ...signer, ...key });
    } catch (error) {
      if (!(error instanceof SshSigError)) throw error;
      result.problems.push({ line: index + 1, message: error.message });
    }
  });
  return result;
}

/** OpenSSH's pattern match: `*` and `?` wildcards, case-sensitive. */
function matchPattern(value: string, pattern: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${re}$`).test(value);
}

/** OpenSSH's pattern lists: comma-separated, `!pattern` refuses; true when some pattern matches and none refuses. */
export function matchPatternList(value: string, list: string): boolean {
  let matched = false;
  for (const raw of list.split(",")) {
    const negated = raw.startsWith("!");
    if (matchPattern(value, negated ? raw.slice(1) : raw)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** Who signed, as a lock and `show` record it. */
export interface Signer {
  principal: string;
  /** The key's fingerprint, `SHA256:…`, as `ssh-keygen -l` prints it. */
  fingerprint: string;
}

const day = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/**
 * The line that lets `blob` sign in `namespace` at `time` (ms), or why none does: no line has the
 * key, or every line that has it refuses the namespace or the time.
 */
export function allowedSigner(
  signers: AllowedSigners,
  blob: Uint8Array,
  namespace: string,
  time: number,
): Signer | { refused: string } {
  const lines = signers.signers.filter((s) => Buffer.compare(s.blob, blob) === 0);
  const key = fingerprint(blob);
  if (lines.length === 0) return { refused: `signed by ${key}, a key the signers file does not list` };
  const reasons: string[] = [];
  for (const s of lines) {
    if (s.namespaces !== undefined && !matchPatternList(namespace, s.namespaces))
      reasons.push(`line ${s.line} (${s.principals}) allows namespaces "${s.namespaces}", not "${namespace}"`);
    else if (s.validAfter !== undefined && time < s.validAfter)
      reasons.push(`line ${s.line} (${s.principals}) is valid only after ${day(s.validAfter)}`);
    else if (s.validBefore !== undefined && time > s.validBefore)
      reasons.push(`line ${s.line} (${s.principals}) expired at ${day(s.validBefore)} (valid-before)`);
    else return { principal: s.principals, fingerprint: key };
  }
  return { refused: `signed by ${key}, but ${reasons.join("; ")}` };
}
