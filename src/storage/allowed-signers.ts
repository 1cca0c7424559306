/**
 * OpenSSH's allowed-signers file (ssh-keygen(1), "ALLOWED SIGNERS"): who may sign, with which
 * key, for which namespaces and when. Read as OpenSSH reads it, so one file serves `git
 * verify-commit`, `ssh-keygen -Y verify` and skill-central alike:
 *
 *     alice@example.com,*@ops.example.com namespaces="git,agent-skills" ssh-ed25519 AAAA… alice
 *     bob@example.com valid-after="20250101",valid-before="20270101Z" ssh-rsa AAAA…
 *
 * Each line is read as OpenSSH 9's sshsig.c reads it, refusals included: values must be quoted, an
 * option given twice, a trailing comma, an impossible time (month 13, hour 24) or `valid-before`
 * not after `valid-after` refuses the line. A line OpenSSH refuses (or a `cert-authority` line:
 * certificates are not supported) is reported and trusts nothing; the rest of the file still
 * counts, as for `ssh-keygen -Y verify`. test/unit/allowed-signers-openssh.test.ts holds the two
 * readers to the same verdicts.
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

/** OpenSSH's WHITESPACE (misc.c), which `strdelimw` splits the principals on. */
const isWhitespace = (c: string | undefined) => c === " " || c === "\t" || c === "\r" || c === "\n";

/**
 * The principals field and the rest of the line, as `strdelimw` splits them: up to whitespace, or
 * with a double quote, to the matching quote (the quotes removed). Undefined: OpenSSH's "invalid
 * line" (an unmatched quote, or nothing after the principals).
 */
function principalsField(line: string): [string, string] | undefined {
  let i = 0;
  while (i < line.length && !isWhitespace(line[i]) && line[i] !== '"') i++;
  if (i === line.length) return undefined;
  let field: string;
  let next: number;
  if (line[i] === '"') {
    const close = line.indexOf('"', i + 1);
    if (close < 0) return undefined;
    field = line.slice(0, i) + line.slice(i + 1, close);
    next = close + 1;
  } else {
    field = line.slice(0, i);
    next = i + 1;
  }
  while (isWhitespace(line[next])) next++;
  return [field, line.slice(next)];
}

/** The key types OpenSSH names in a public key line (sshkey.c's `keyimpls`). */
const KEY_TYPE =
  /^(ssh-(ed25519|rsa|dss|xmss)|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9-]+@openssh\.com)(-cert-v01@openssh\.com)?$/;

/**
 * `type base64` at the start of `text` (then anything: the comment), as `sshkey_read` reads it,
 * or undefined when it is not a key. The type must be followed by a space or tab.
 */
export function readKey(text: string): { type: string; blob: Uint8Array } | undefined {
  const typeEnd = text.search(/[ \t]/);
  if (typeEnd < 0) return undefined;
  const type = text.slice(0, typeEnd);
  if (!KEY_TYPE.test(type)) return undefined;
  const rest = text.slice(typeEnd).replace(/^[ \t]+/, "");
  const encoded = rest.slice(0, rest.search(/[ \t]|$/)).replace(/\s+/g, "");
  if (encoded === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 === 1) return undefined;
  const blob = new Uint8Array(Buffer.from(encoded, "base64"));
  const named = blob.length >= 4 ? new DataView(blob.buffer, blob.byteOffset).getUint32(0) : 0;
  if (new TextDecoder().decode(blob.subarray(4, 4 + named)) !== type) return undefined;
  return { type, blob };
}

/** Where the options field ends (`sshkey_advance_past_options`): the first unquoted space or tab; undefined on an open quote. */
function optionsEnd(text: string): number | undefined {
  let quoted = false;
  let i = 0;
  for (; i < text.length && (quoted || (text[i] !== " " && text[i] !== "\t")); i++) {
    if (text[i] === "\\" && text[i + 1] === '"') i++;
    else if (text[i] === '"') quoted = !quoted;
  }
  return i === text.length && quoted ? undefined : i;
}

/** `opt_dequote`: a value must be quoted; `\"` stands for a quote. The value and where reading goes on. */
function dequote(text: string, at: number, name: string): [string, number] {
  if (text[at] !== '"') throw new SshSigError(`${name} must be quoted (${name}="…")`);
  let value = "";
  let i = at + 1;
  for (; i < text.length && text[i] !== '"'; i++) {
    if (text[i] === "\\" && text[i + 1] === '"') i++;
    value += text[i];
  }
  if (i >= text.length) throw new SshSigError(`${name}'s value has no closing quote`);
  return [value, i + 1];
}

/**
 * glibc's `strptime` number (its `get_number`): spaces skipped, at most `width` digits, stopping
 * early once another digit would pass `max`; the value and where reading goes on.
 */
function strptimeNumber(
  text: string,
  at: number,
  min: number,
  max: number,
  width: number,
): [number, number] | undefined {
  let i = at;
  while (/[ \t\n\v\f\r]/.test(text[i] ?? "")) i++;
  if (!/[0-9]/.test(text[i] ?? "")) return undefined;
  let value = 0;
  let left = width;
  do value = value * 10 + Number(text[i++]);
  while (--left > 0 && value * 10 <= max && /[0-9]/.test(text[i] ?? ""));
  return value < min || value > max ? undefined : [value, i];
}

const TIME_FIELDS = [
  { separator: "", from: 0, width: 4, min: 0, max: 9999 },
  { separator: "-", from: 4, width: 2, min: 1, max: 12 },
  { separator: "-", from: 6, width: 2, min: 1, max: 31 },
  { separator: "T", from: 8, width: 2, min: 0, max: 23 },
  { separator: ":", from: 10, width: 2, min: 0, max: 59 },
  { separator: ":", from: 12, width: 2, min: 0, max: 61 },
];

/**
 * A `valid-after`/`valid-before` time, as OpenSSH reads it (`parse_absolute_time` in misc.c):
 * `YYYYMMDD`, `YYYYMMDDHHMM` or `YYYYMMDDHHMMSS`, in UTC with a `Z` or `UTC` suffix, else local
 * time (standard time, as `mktime` with `tm_isdst` 0). The digits are cut into fields and read
 * with strptime's ranges: month 1–12, day 1–31, hour 0–23, minute 0–59, second 0–61; a day the
 * month lacks (February 30) rolls over into the next month as mktime does. Milliseconds since
 * the epoch, or undefined where OpenSSH refuses it (including the epoch itself and before it:
 * OpenSSH reads 0 as unset).
 */
export function parseSignerTime(value: string): number | undefined {
  let length = value.length;
  let utc = false;
  if (length > 1 && /z$/i.test(value)) [utc, length] = [true, length - 1];
  else if (length > 3 && /utc$/i.test(value)) [utc, length] = [true, length - 3];
  if (length !== 8 && length !== 12 && length !== 14) return undefined;
  // strptime's format: %Y-%m-%d[T%H:%M[:%S]] over the digits cut into fields, as OpenSSH formats them.
  const fields = TIME_FIELDS.slice(0, length === 8 ? 3 : length === 12 ? 5 : 6);
  const text = fields.map((f) => f.separator + value.slice(f.from, f.from + f.width)).join("");
  const parts: number[] = [];
  let at = 0;
  for (const { separator, min, max, width } of fields) {
    if (text.slice(at, at + separator.length) !== separator) return undefined;
    const read = strptimeNumber(text, at + separator.length, min, max, width);
    if (!read) return undefined;
    let part: number;
    [part, at] = read;
    parts.push(part);
  }
  if (at !== text.length) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = parts as [number, number, number, ...number[]];
  const date = new Date(0);
  if (utc) {
    date.setUTCFullYear(year, month - 1, day);
    date.setUTCHours(hour, minute, second, 0);
  } else {
    date.setFullYear(year, month - 1, day);
    date.setHours(hour, minute, second, 0);
    // mktime with tm_isdst 0 reads the time as standard time, where JavaScript would take summer time.
    const standard = Math.max(new Date(year, 0, 1).getTimezoneOffset(), new Date(year, 6, 1).getTimezoneOffset());
    date.setTime(date.getTime() + (standard - date.getTimezoneOffset()) * 60_000);
  }
  const time = date.getTime();
  return Number.isNaN(time) || time <= 0 ? undefined : time;
}

/** `sshsigopt_parse`: the comma-separated options before the key; throws with the reason OpenSSH refuses the line. */
function readOptions(text: string, into: AllowedSigner): void {
  let at = 0;
  while (at < text.length && text[at] !== " " && text[at] !== "\t") {
    const rest = text.slice(at);
    const named = /^(namespaces|valid-after|valid-before)=/i.exec(rest);
    if (/^cert-authority/i.test(rest))
      throw new SshSigError("cert-authority lines are not supported: list each signer's own key");
    if (named) {
      const name = named[1]!.toLowerCase();
      const field = name === "namespaces" ? "namespaces" : name === "valid-after" ? "validAfter" : "validBefore";
      if (into[field] !== undefined) throw new SshSigError(`${name} is given twice (OpenSSH refuses such a line)`);
      const [value, next] = dequote(text, at + named[0].length, name);
      at = next;
      if (field === "namespaces") into.namespaces = value;
      else {
        const time = parseSignerTime(value);
        if (time === undefined)
          throw new SshSigError(`${name}="${value}" is not a time OpenSSH reads (YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z])`);
        into[field] = time;
      }
    }
    if (at >= text.length || text[at] === " " || text[at] === "\t") break;
    // OpenSSH skips a comma where an option would start: a leading or doubled comma is harmless.
    if (text[at] !== ",") throw new SshSigError(`unknown option "${/^[^=,]*/.exec(text.slice(at))![0]}"`);
    at++;
    if (at >= text.length) throw new SshSigError("the options end in a comma");
  }
  if (into.validAfter !== undefined && into.validBefore !== undefined && into.validBefore <= into.validAfter)
    throw new SshSigError("valid-before is not after valid-after");
}

/**
 * Reads the file line by line as OpenSSH's sshsig.c does (`parse_principals_key_and_options`): a
 * line it refuses trusts nothing and is reported; the other lines still count, as they do for
 * `ssh-keygen -Y verify`.
 */
export function parseAllowedSigners(text: string): AllowedSigners {
  const result: AllowedSigners = { signers: [], problems: [] };
  text.split("\n").forEach((raw, index) => {
    const line = raw.replace(/^[ \t]+/, "");
    if (line.trim() === "" || line.startsWith("#")) return;
    const signer: AllowedSigner = { principals: "", type: "", blob: new Uint8Array(), line: index + 1 };
    try {
      const split = principalsField(line);
      if (!split) throw new SshSigError("no key after the principals (or an unclosed quote)");
      const [principals, rest] = split;
      signer.principals = principals;
      let key = readKey(rest);
      if (!key) {
        const end = optionsEnd(rest);
        if (end === undefined) throw new SshSigError("the options have an unclosed quote");
        if (end >= rest.length)
          throw new SshSigError("no key (a key type and its base64) after the principals and options");
        readOptions(rest.slice(0, end), signer);
        key = readKey(rest.slice(end).replace(/^[ \t]+/, ""));
        if (!key) throw new SshSigError("no key (a key type and its base64) after the principals and options");
      }
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
