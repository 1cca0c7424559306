/**
 * A fast reader for the YAML that skill and config files are written in, with duplicate keys
 * found on the way: block mappings and sequences, literal and folded block scalars (`|`, `>`,
 * each with `-` or `+`), one-line flow collections (`[a, b]`, `{ name: x, required: true }`),
 * quoted and plain scalars resolved by the YAML 1.2 core schema, comments.
 *
 * It answers only when it is certain: anything it does not model (anchors, aliases, tags,
 * indentation indicators, folded lines indented deeper than their block, multi-line plain or
 * quoted scalars, multi-line flow collections, tabs outside scalar text, complex keys,
 * directives, several documents) and anything that would be an error (duplicate keys included)
 * returns `undefined`, and the caller takes the authoritative path (the `yaml` package). A false
 * `undefined` costs only speed; data must never differ from what the `yaml` package reads
 * (test/unit/fast-yaml.test.ts compares the two on generated files).
 *
 * Why not `Bun.YAML.parse`: it keeps the last of duplicate keys silently, so it needs a separate
 * duplicate-key scan first, and the two took ~3× as long a skill file as this one pass, whose
 * bulk is a literal block scalar that is sliced, not tokenised (docs/performance.md).
 */

/** Thrown to abandon the fast path; caught once at the top. */
const BAIL: unique symbol = Symbol("bail");

const SPACE = 32;
const TAB = 9;
const HASH = 35;
const DASH = 45;
const COLON = 58;
const DQUOTE = 34;
const SQUOTE = 39;

interface Lines {
  text: string;
  /** Some line ends in \r\n. */
  crlf: boolean;
  starts: number[];
  /** Exclusive, without a trailing `\r`. */
  ends: number[];
}

function splitLines(text: string): Lines {
  const starts: number[] = [];
  const ends: number[] = [];
  const hasCr = text.indexOf("\r") >= 0;
  let start = 0;
  for (;;) {
    const newline = text.indexOf("\n", start);
    const stop = newline < 0 ? text.length : newline;
    let end = stop;
    if (hasCr) {
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      // A line break other than \n or \r\n would make this reader's lines differ from YAML's.
      if (text.lastIndexOf("\r", end - 1) >= start) throw BAIL;
    }
    starts.push(start);
    ends.push(end);
    if (newline < 0) break;
    start = newline + 1;
  }
  return { text, crlf: hasCr, starts, ends };
}

function indentOf(lines: Lines, i: number): number {
  const { text } = lines;
  const start = lines.starts[i]!;
  const end = lines.ends[i]!;
  let p = start;
  while (p < end && text.charCodeAt(p) === SPACE) p++;
  return p - start;
}

/** Blank (spaces only) or a comment line: ignored between nodes. */
function isSkippable(lines: Lines, i: number): boolean {
  const { text } = lines;
  const end = lines.ends[i]!;
  let p = lines.starts[i]!;
  while (p < end && text.charCodeAt(p) === SPACE) p++;
  if (p === end) return true;
  const c = text.charCodeAt(p);
  if (c === TAB) throw BAIL;
  return c === HASH;
}

function nextContentLine(lines: Lines, from: number): number {
  let i = from;
  while (i < lines.starts.length && isSkippable(lines, i)) i++;
  return i;
}

const NULL_WORD = /^(?:~|[Nn]ull|NULL)$/;
const BOOL_WORD = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/**
 * A plain scalar as the core schema reads it: the same tests, in the same order, as `yaml`, but
 * only those that can match given the first character (most values start with a letter that
 * no null, boolean or number starts with).
 */
function resolvePlain(s: string): unknown {
  const c = s.charCodeAt(0);
  switch (c) {
    case 126: // ~
      return s.length === 1 ? null : s;
    case 110: // n
    case 78: // N
      return NULL_WORD.test(s) ? null : s;
    case 116: // t
    case 84: // T
    case 102: // f
    case 70: // F
      return BOOL_WORD.test(s) ? c === 116 || c === 84 : s;
  }
  if (!(c === 46 || c === 43 || c === DASH || (c >= 48 && c <= 57))) return s;
  if (INT_OCT.test(s)) return parseInt(s.slice(2), 8);
  if (INT.test(s)) return parseInt(s, 10);
  if (INT_HEX.test(s)) return parseInt(s.slice(2), 16);
  if (FLOAT_NAN.test(s))
    return s.slice(-3).toLowerCase() === "nan"
      ? Number.NaN
      : c === DASH
        ? Number.NEGATIVE_INFINITY
        : Number.POSITIVE_INFINITY;
  if (FLOAT_EXP.test(s) || FLOAT.test(s)) return parseFloat(s);
  return s;
}

/** Characters that may start a plain scalar here without any doubt about what they mean. */
function isSafePlainStart(text: string, p: number, end: number): boolean {
  const c = text.charCodeAt(p);
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) return true;
  if (
    c === 95 ||
    c === 36 ||
    c === 47 ||
    c === 92 ||
    c === 40 ||
    c === 46 ||
    c === 126 ||
    c === 43 ||
    c === 60 ||
    c === 61 ||
    c === 59 ||
    c === 94 ||
    c === 41 ||
    c > 127
  ) {
    return true;
  }
  // `-x` and `-5` are plain scalars; `- x` is a sequence entry, and `-` before anything else
  // (`-]`, `-,`) is left to `yaml`.
  if (c === DASH && p + 1 < end) {
    const n = text.charCodeAt(p + 1);
    return (n >= 97 && n <= 122) || (n >= 65 && n <= 90) || (n >= 48 && n <= 57) || n === 46 || n === 95;
  }
  return false;
}

const ESCAPES: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\x85",
  _: "\xa0",
  L: "\u2028",
  P: "\u2029",
};
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };
const HEX = /^[0-9a-fA-F]+$/;

/** A quoted scalar that closes on this line: its value and the position after the closing quote. */
function readQuoted(text: string, p: number, end: number): [string, number] {
  const quote = text.charCodeAt(p);
  if (quote === SQUOTE) {
    let out = "";
    let from = p + 1;
    for (;;) {
      const close = text.indexOf("'", from);
      if (close < 0 || close >= end) throw BAIL;
      out += text.slice(from, close);
      if (close + 1 < end && text.charCodeAt(close + 1) === SQUOTE) {
        out += "'";
        from = close + 2;
        continue;
      }
      return [out, close + 1];
    }
  }
  let out = "";
  let from = p + 1;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === DQUOTE) return [out + text.slice(from, i), i + 1];
    if (c !== 92) continue;
    out += text.slice(from, i);
    const e = text[i + 1];
    if (e === undefined || i + 1 >= end) throw BAIL;
    const digits = HEX_DIGITS[e];
    if (digits !== undefined) {
      const hex = text.slice(i + 2, i + 2 + digits);
      if (hex.length !== digits || !HEX.test(hex) || i + 2 + digits > end) throw BAIL;
      const code = parseInt(hex, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw BAIL;
      out += String.fromCodePoint(code);
      i += 1 + digits;
    } else {
      const replacement = ESCAPES[e];
      if (replacement === undefined) throw BAIL;
      out += replacement;
      i += 1;
    }
    from = i + 1;
  }
  throw BAIL;
}

/** After a complete value: only spaces, then the end or a ` #` comment. */
function expectLineEnd(text: string, p: number, end: number): void {
  let q = p;
  while (q < end && text.charCodeAt(q) === SPACE) q++;
  if (q === end) return;
  if (text.charCodeAt(q) === HASH && q > p) return;
  throw BAIL;
}

/** Keys are plain strings and unique within a mapping; anything else is left to `yaml`. */
function setKey(map: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__" || Object.hasOwn(map, key)) throw BAIL;
  map[key] = value;
}

function checkPlainKey(key: string): string {
  if (key === "" || key.length > 1000 || key === "<<" || resolvePlain(key) !== key) throw BAIL;
  return key;
}

// --- flow collections (on one line) ---------------------------------------------------------

function skipSpaces(text: string, p: number, end: number): number {
  while (p < end && text.charCodeAt(p) === SPACE) p++;
  return p;
}

function isFlowStop(c: number): boolean {
  return c === 44 || c === 91 || c === 93 || c === 123 || c === 125;
}

/** A plain scalar inside a flow collection: up to `,[]{}`, `: ` or ` #`. */
function readFlowPlain(text: string, p: number, end: number): [string, number] {
  if (!isSafePlainStart(text, p, end)) throw BAIL;
  let q = p;
  while (q < end) {
    const c = text.charCodeAt(q);
    if (isFlowStop(c)) break;
    if (c === COLON) {
      const n = text.charCodeAt(q + 1);
      if (q + 1 >= end || n === SPACE || isFlowStop(n)) break;
    }
    if (c === HASH && text.charCodeAt(q - 1) === SPACE) throw BAIL;
    if (c === TAB) throw BAIL;
    q++;
  }
  const raw = text.slice(p, q).trimEnd();
  if (raw === "") throw BAIL;
  return [raw, q];
}

/** Deeper nesting is left to `yaml` (and the loader's depth limit): no recursion here is unbounded. */
const MAX_DEPTH = 64;

function readFlowNode(text: string, p: number, end: number, depth: number): [unknown, number] {
  const c = text.charCodeAt(p);
  if (c === 91 || c === 123) return readFlowCollection(text, p, end, depth + 1);
  if (c === DQUOTE || c === SQUOTE) return readQuoted(text, p, end);
  const [raw, q] = readFlowPlain(text, p, end);
  return [resolvePlain(raw), q];
}

function readFlowCollection(text: string, p: number, end: number, depth: number): [unknown, number] {
  if (depth > MAX_DEPTH) throw BAIL;
  const isMap = text.charCodeAt(p) === 123;
  const close = isMap ? 125 : 93;
  const map: Record<string, unknown> = {};
  const list: unknown[] = [];
  let q = skipSpaces(text, p + 1, end);
  if (q < end && text.charCodeAt(q) === close) return [isMap ? map : list, q + 1];
  for (;;) {
    if (q >= end) throw BAIL;
    if (isMap) {
      let key: string;
      const k = text.charCodeAt(q);
      if (k === DQUOTE || k === SQUOTE) [key, q] = readQuoted(text, q, end);
      else {
        let raw: string;
        [raw, q] = readFlowPlain(text, q, end);
        key = checkPlainKey(raw);
      }
      q = skipSpaces(text, q, end);
      if (q + 1 >= end || text.charCodeAt(q) !== COLON || text.charCodeAt(q + 1) !== SPACE) throw BAIL;
      q = skipSpaces(text, q + 1, end);
      let value: unknown;
      [value, q] = readFlowNode(text, q, end, depth);
      setKey(map, key, value);
    } else {
      let value: unknown;
      [value, q] = readFlowNode(text, q, end, depth);
      list.push(value);
    }
    q = skipSpaces(text, q, end);
    if (q >= end) throw BAIL;
    const c = text.charCodeAt(q);
    if (c === close) return [isMap ? map : list, q + 1];
    if (c !== 44) throw BAIL;
    q = skipSpaces(text, q + 1, end);
    // A trailing comma and empty entries are left to `yaml`.
    if (q < end && (text.charCodeAt(q) === close || text.charCodeAt(q) === 44)) throw BAIL;
  }
}

// --- block nodes ------------------------------------------------------------------------------

interface Reader {
  lines: Lines;
  /** The next line to read. */
  i: number;
  /** How many block collections enclose the one being read. */
  depth: number;
}

type Chomp = "clip" | "strip" | "keep";

/**
 * A block scalar (literal, or folded with `folded`) starting at line `r.i`; `parent` is the
 * indentation its content must exceed. Content indentation is that of the first non-empty line.
 */
function readBlockScalar(r: Reader, parent: number, chomp: Chomp, folded: boolean): string {
  const { lines } = r;
  const { text } = lines;
  const count = lines.starts.length;
  let i = r.i;
  let indent = -1;
  let leadingMax = 0;
  for (let j = i; j < count; j++) {
    const n = indentOf(lines, j);
    if (lines.starts[j]! + n === lines.ends[j]!) {
      leadingMax = Math.max(leadingMax, n);
      continue;
    }
    indent = n;
    break;
  }
  if (indent <= parent) {
    // No content: an empty scalar (its blank lines belong to what follows).
    if (chomp === "keep") throw BAIL;
    return "";
  }
  if (leadingMax > indent) throw BAIL;
  // Where the content ends: the first non-empty line indented less than the content.
  const from = i;
  let lastContent = -1;
  for (; i < count; i++) {
    const n = indentOf(lines, i);
    if (lines.starts[i]! + n === lines.ends[i]!) {
      // A line of spaces only: empty when within the indentation, else text we leave to `yaml`.
      if (n > indent) throw BAIL;
      continue;
    }
    if (n < indent) break;
    lastContent = i;
  }
  const lastContentEnd = lines.ends[lastContent]!;
  // The last line of the file without a line break, or trailing empty lines kept, are rare
  // enough to leave to `yaml`.
  if (lastContentEnd === text.length) throw BAIL;
  if (chomp === "keep" && lastContent < i - 1) throw BAIL;
  r.i = i;
  let body: string;
  if (folded) body = fold(lines, from, lastContent, indent);
  else if (lines.crlf) {
    const parts: string[] = [];
    for (let j = from; j <= lastContent; j++)
      parts.push(text.slice(Math.min(lines.starts[j]! + indent, lines.ends[j]!), lines.ends[j]!));
    body = parts.join("\n");
  } else {
    // One native replace removes the indentation of every line (an empty line has at most
    // `indent` spaces, checked above).
    body = `\n${text.slice(lines.starts[from]!, lastContentEnd)}`.replace(unindent(indent), "\n").slice(1);
  }
  return chomp === "strip" ? body : `${body}\n`;
}

/**
 * A folded block's lines joined as YAML folds them: a line break between two lines of text
 * becomes a space, and n empty lines between them become n line breaks. Lines indented deeper
 * than the block keep their breaks, and leading empty lines are kept too: both are left to `yaml`.
 */
function fold(lines: Lines, from: number, last: number, indent: number): string {
  const { text } = lines;
  let body = "";
  let empties = -1;
  for (let j = from; j <= last; j++) {
    const start = lines.starts[j]! + indent;
    if (start >= lines.ends[j]!) {
      if (empties < 0) throw BAIL;
      empties++;
      continue;
    }
    const c = text.charCodeAt(start);
    if (c === SPACE || c === TAB) throw BAIL;
    if (empties >= 0) body += empties === 0 ? " " : "\n".repeat(empties);
    body += text.slice(start, lines.ends[j]!);
    empties = 0;
  }
  return body;
}

const UNINDENT: RegExp[] = [];
function unindent(indent: number): RegExp {
  let pattern = UNINDENT[indent];
  if (!pattern) {
    pattern = new RegExp(`\\n {0,${indent}}`, "g");
    UNINDENT[indent] = pattern;
  }
  return pattern;
}

/** The value written after `key:` or `- ` on line `line` from position `p`. */
function readInlineValue(r: Reader, line: number, p: number, parentIndent: number): unknown {
  const { lines } = r;
  const { text } = lines;
  const end = lines.ends[line]!;
  const c = text.charCodeAt(p);
  r.i = line + 1;
  if (c === 124 || c === 62) {
    // `|` or `>`, then `-`, `+` or nothing, then spaces and an optional comment.
    let q = p + 1;
    let chomp: Chomp = "clip";
    const m = text.charCodeAt(q);
    if (m === DASH) {
      chomp = "strip";
      q++;
    } else if (m === 43) {
      chomp = "keep";
      q++;
    }
    expectLineEnd(text, q, end);
    return readBlockScalar(r, parentIndent, chomp, c === 62);
  }
  if (c === 91 || c === 123) {
    const [value, q] = readFlowCollection(text, p, end, r.depth + 1);
    expectLineEnd(text, q, end);
    checkNoContinuation(r, parentIndent);
    return value;
  }
  if (c === DQUOTE || c === SQUOTE) {
    const [value, q] = readQuoted(text, p, end);
    expectLineEnd(text, q, end);
    checkNoContinuation(r, parentIndent);
    return value;
  }
  if (!isSafePlainStart(text, p, end)) throw BAIL;
  let q = p;
  let stop = end;
  while (q < end) {
    const ch = text.charCodeAt(q);
    if (ch === COLON && (q + 1 === end || text.charCodeAt(q + 1) === SPACE)) throw BAIL;
    if (ch === HASH && text.charCodeAt(q - 1) === SPACE) {
      stop = q;
      break;
    }
    if (ch === TAB) throw BAIL;
    q++;
  }
  const raw = text.slice(p, stop).trimEnd();
  checkNoContinuation(r, parentIndent);
  return resolvePlain(raw);
}

/** A scalar on one line must not continue on a deeper line (multi-line scalars go to `yaml`). */
function checkNoContinuation(r: Reader, parentIndent: number): void {
  const next = nextContentLine(r.lines, r.i);
  if (next < r.lines.starts.length && indentOf(r.lines, next) > parentIndent) throw BAIL;
}

/** Whether the text from `p` is `key:` (plain or quoted key), and where the value starts. */
function keyAt(text: string, p: number, end: number): { key: string; valueAt: number } | undefined {
  const c = text.charCodeAt(p);
  if (c === DQUOTE || c === SQUOTE) {
    const [key, q] = readQuoted(text, p, end);
    const k = skipSpaces(text, q, end);
    if (k < end && text.charCodeAt(k) === COLON && (k + 1 === end || text.charCodeAt(k + 1) === SPACE)) {
      return { key, valueAt: skipSpaces(text, k + 1, end) };
    }
    return undefined;
  }
  if (!isSafePlainStart(text, p, end)) return undefined;
  for (let q = p; q < end; q++) {
    const ch = text.charCodeAt(q);
    if (ch === COLON && (q + 1 === end || text.charCodeAt(q + 1) === SPACE)) {
      return { key: checkPlainKey(text.slice(p, q).trimEnd()), valueAt: skipSpaces(text, q + 1, end) };
    }
    if (ch === HASH && text.charCodeAt(q - 1) === SPACE) return undefined;
    if (ch === TAB) throw BAIL;
    // Flow or quote characters in a key are left to `yaml`.
    if (ch === 91 || ch === 93 || ch === 123 || ch === 125 || ch === DQUOTE || ch === SQUOTE || ch === 44) throw BAIL;
  }
  return undefined;
}

function isSequenceEntry(text: string, p: number, end: number): boolean {
  return text.charCodeAt(p) === DASH && (p + 1 === end || text.charCodeAt(p + 1) === SPACE);
}

/** The node that follows `key:` or `-` with nothing after it: deeper lines, or null. */
function readNestedNode(r: Reader, ownerIndent: number, compactSequenceAllowed: boolean): unknown {
  const { lines } = r;
  const next = nextContentLine(lines, r.i);
  if (next >= lines.starts.length) return null;
  const n = indentOf(lines, next);
  const start = lines.starts[next]!;
  const end = lines.ends[next]!;
  const entry = isSequenceEntry(lines.text, start + n, end);
  if (n > ownerIndent) {
    r.i = next;
    return entry ? readSequence(r, n) : readMapping(r, n, start + n);
  }
  if (n === ownerIndent && entry && compactSequenceAllowed) {
    r.i = next;
    return readSequence(r, n);
  }
  return null;
}

/**
 * A block mapping whose keys sit at column `indent`; its first key may start mid-line (after
 * `- `) at `firstKeyAt`.
 */
function readMapping(r: Reader, indent: number, firstKeyAt: number): Record<string, unknown> {
  if (++r.depth > MAX_DEPTH) throw BAIL;
  try {
    return readMappingEntries(r, indent, firstKeyAt);
  } finally {
    r.depth--;
  }
}

function readMappingEntries(r: Reader, indent: number, firstKeyAt: number): Record<string, unknown> {
  const { lines } = r;
  const { text } = lines;
  const map: Record<string, unknown> = {};
  let first = true;
  for (;;) {
    let p: number;
    let line: number;
    if (first) {
      line = r.i;
      p = firstKeyAt;
      first = false;
    } else {
      line = nextContentLine(lines, r.i);
      if (line >= lines.starts.length) return map;
      const n = indentOf(lines, line);
      if (n < indent) {
        r.i = line;
        return map;
      }
      if (n > indent) throw BAIL;
      p = lines.starts[line]! + n;
      const end = lines.ends[line]!;
      if (isSequenceEntry(text, p, end)) {
        // A sequence at a mapping's indentation after a key that had a value: an error, or
        // an end this reader does not judge.
        throw BAIL;
      }
    }
    const end = lines.ends[line]!;
    const found = keyAt(text, p, end);
    if (!found) throw BAIL;
    let value: unknown;
    if (found.valueAt >= end || text.charCodeAt(found.valueAt) === HASH) {
      r.i = line + 1;
      value = readNestedNode(r, indent, true);
    } else {
      value = readInlineValue(r, line, found.valueAt, indent);
    }
    setKey(map, found.key, value);
  }
}

/** A block sequence whose `-` entries sit at column `indent`; starts at line `r.i`. */
function readSequence(r: Reader, indent: number): unknown[] {
  if (++r.depth > MAX_DEPTH) throw BAIL;
  try {
    return readSequenceItems(r, indent);
  } finally {
    r.depth--;
  }
}

function readSequenceItems(r: Reader, indent: number): unknown[] {
  const { lines } = r;
  const { text } = lines;
  const list: unknown[] = [];
  for (;;) {
    const line = nextContentLine(lines, r.i);
    if (line >= lines.starts.length) return list;
    const n = indentOf(lines, line);
    if (n < indent) {
      r.i = line;
      return list;
    }
    if (n > indent) throw BAIL;
    const start = lines.starts[line]!;
    const end = lines.ends[line]!;
    if (!isSequenceEntry(text, start + n, end)) {
      r.i = line;
      return list;
    }
    const p = skipSpaces(text, start + n + 1, end);
    if (p >= end || text.charCodeAt(p) === HASH) {
      r.i = line + 1;
      list.push(readNestedNode(r, indent, false));
      continue;
    }
    if (isSequenceEntry(text, p, end)) throw BAIL;
    const c = text.charCodeAt(p);
    const key = c === 91 || c === 123 || c === 124 || c === 62 ? undefined : keyAt(text, p, end);
    if (key) {
      r.i = line;
      list.push(readMapping(r, p - start, p));
    } else {
      list.push(readInlineValue(r, line, p, indent));
    }
  }
}

/**
 * The document's data, or undefined when the text goes beyond what this reader is sure of
 * (including every error). Only documents whose root is a block mapping (or empty) are read.
 */
export function fastParseYaml(text: string): { data: unknown } | undefined {
  try {
    if (text.charCodeAt(0) === 0xfeff) return undefined;
    const lines = splitLines(text);
    const r: Reader = { lines, i: 0, depth: 0 };
    let line = nextContentLine(lines, 0);
    if (line < lines.starts.length && text.startsWith("---", lines.starts[line]!)) {
      const start = lines.starts[line]!;
      expectLineEnd(text, start + 3, lines.ends[line]!);
      if (start + 3 < lines.ends[line]! && text.charCodeAt(start + 3) !== SPACE) return undefined;
      line = nextContentLine(lines, line + 1);
    }
    if (line >= lines.starts.length) return { data: null };
    if (indentOf(lines, line) !== 0) return undefined;
    const start = lines.starts[line]!;
    const first = text.charCodeAt(start);
    if (first === DASH || first === 37 || first === 46) return undefined;
    r.i = line;
    const data = readMapping(r, 0, start);
    if (nextContentLine(lines, r.i) < lines.starts.length) return undefined;
    return { data };
  } catch (error) {
    if (error === BAIL) return undefined;
    throw error;
  }
}
