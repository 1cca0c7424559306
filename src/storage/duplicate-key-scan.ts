/**
 * A conservative pre-check for duplicate mapping keys, so that the fast parser (`Bun.YAML.parse`,
 * ~10× quicker than the `yaml` package but "last key wins") can be used for the common case.
 *
 * It understands the YAML that skill files are written in: nested block mappings, sequences of
 * mappings, block scalars (`|`, `>`), comments, and flow collections that open and close on one
 * line (`{ name: a, required: true }`, `[a, b]`). Whenever a line could hide a key it does not
 * model (multi-line flow collections, anchors, aliases, merge keys, tags, complex keys,
 * directives, multiple documents, tabs) it answers `unsure`, and the caller falls back to the `yaml` package,
 * which is authoritative. A false alarm costs only speed; `clean` must never be wrong.
 */
export type ScanVerdict = { kind: "clean" } | { kind: "unsure" } | { kind: "duplicate"; line: number; key: string };

const CLEAN: ScanVerdict = { kind: "clean" };
const UNSURE: ScanVerdict = { kind: "unsure" };

// The key's last character is not a space, so the spaces before ":" belong to `[ ]*` alone: with
// both able to take them, a long line of spaces and no ":" took quadratic time (seconds at 50 KB).
const PLAIN_KEY = /^((?:[^\s:#'"{}[\],&*!|>%@`?-]|-(?=\S))(?:(?:[^:#]|:(?=\S)|#(?<!\s#))*?(?:[^ :#]|:(?=\S)|#(?<!\s#)))?)[ ]*:(?=\s|$)/;
const DOUBLE_QUOTED_KEY = /^"((?:[^"\\]|\\.)*)"[ ]*:(?=\s|$)/;
const SINGLE_QUOTED_KEY = /^'((?:[^']|'')*)'[ ]*:(?=\s|$)/;
const BLOCK_SCALAR = /^[|>][0-9+-]*[ ]*(?:#.*)?$/;
/** Value openings that introduce constructs this scanner does not model. */
const RISKY_VALUE_START = /^[&*!?%@`]/;

interface OpenMapping {
  indent: number;
  keys: Set<string>;
}

function leadingSpaces(line: string): number {
  let i = 0;
  while (line.charCodeAt(i) === 32) i++;
  return i;
}

interface FlowContext {
  /** Present for mappings: the keys seen so far. */
  keys?: Set<string>;
  expectingKey: boolean;
  token: string;
}

/**
 * Plain keys whose text is their value. Anything else may resolve to a value shared with a key
 * spelled differently (`1` and `01`, `true` and `True`, `null` and `~`), so it is not vouched for.
 */
const CERTAIN_PLAIN_KEY = /^-?[A-Za-z_$][\w$.:#/-]*$/;
/** YAML 1.2 core-schema words (what Bun.YAML and the yaml package resolve); `yes`/`on` stay strings. */
const RESOLVING_WORDS = /^(?:true|false|null)$/i;

/** A key's text as YAML reads it, or undefined when that is not certain. */
function keyText(token: string): string | undefined {
  const t = token.trim();
  if (t.startsWith('"')) return t.includes("\\") ? undefined : t.slice(1, -1);
  if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  return CERTAIN_PLAIN_KEY.test(t) && !RESOLVING_WORDS.test(t) ? t : undefined;
}

const isSpace = (code: number): boolean => code === 32 || code === 9;
/** Characters that start a construct (anchor, alias, tag, block scalar…) this scan does not model. */
const RISKY_CHARS = new Set(["&", "*", "!", "?", "|", ">", "%", "@", "`"]);

/** Index of the quote closing the quoted scalar opened at `start`, or -1. */
function closingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (quote === '"' && ch === "\\") i++;
    else if (ch === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

/**
 * Checks a flow collection that must close on this line (`{a: 1, b: [x, {c: 2}]}`): `clean`
 * when no mapping in it repeats a key, `unsure` for anything it cannot read with certainty.
 */
function scanFlow(text: string): ScanVerdict {
  const stack: FlowContext[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const top = stack[stack.length - 1];
    if (ch === "{" || ch === "[") {
      if (top && top.token.trim() !== "") return UNSURE;
      stack.push(ch === "{" ? { keys: new Set(), expectingKey: true, token: "" } : { expectingKey: false, token: "" });
      continue;
    }
    if (!top) return UNSURE;
    if (ch === '"' || ch === "'") {
      const close = closingQuote(text, i);
      if (close < 0) return UNSURE;
      if (top.expectingKey) top.token += text.slice(i, close + 1);
      else top.token = "x";
      i = close;
    } else if (ch === ":" && (i + 1 === text.length || isSpace(text.charCodeAt(i + 1)) || ",]}".includes(text[i + 1]!))) {
      if (!top.keys || !top.expectingKey) return UNSURE; // `[a: b]` single-pair mappings: not modelled
      const key = keyText(top.token);
      if (key === undefined || key === "") return UNSURE;
      if (top.keys.has(key)) return { kind: "duplicate", line: 0, key };
      top.keys.add(key);
      top.expectingKey = false;
      top.token = "";
    } else if (ch === ",") {
      if (top.keys && top.expectingKey && top.token.trim() !== "") return UNSURE; // `{a, b}`: implicit nulls
      if (top.keys) top.expectingKey = true;
      top.token = "";
    } else if (ch === "}" || ch === "]") {
      if ((ch === "}") !== Boolean(top.keys)) return UNSURE;
      if (top.keys && top.expectingKey && top.token.trim() !== "") return UNSURE;
      stack.pop();
      if (stack.length === 0) {
        const after = text.slice(i + 1).trim();
        return after === "" || after.startsWith("#") ? CLEAN : UNSURE;
      }
    } else if (ch === "#" && i > 0 && isSpace(text.charCodeAt(i - 1))) {
      return UNSURE;
    } else if (isSpace(text.charCodeAt(i))) {
      if (top.expectingKey && top.token !== "") top.token += ch;
    } else if (top.token === "" && RISKY_CHARS.has(ch)) {
      return UNSURE;
    } else if (top.expectingKey) {
      top.token += ch;
    } else {
      // A plain value: remember it only to catch a collection opening right after it.
      top.token = "x";
    }
  }
  return UNSURE; // not closed on this line
}

/** `clean` for values that cannot hide keys, the flow verdict for flow collections. */
function scanValue(value: string): ScanVerdict {
  if (value === "" || value.startsWith("#")) return CLEAN;
  if (RISKY_VALUE_START.test(value)) return UNSURE;
  if (value.startsWith("{") || value.startsWith("[")) return scanFlow(value);
  return CLEAN;
}

export function scanDuplicateKeys(text: string): ScanVerdict {
  // A byte-order mark, or line breaks other than \n and \r\n, would shift what this scan
  // calls a line from what the parser does.
  if (text.charCodeAt(0) === 0xfeff || /\r(?!\n)/.test(text)) return UNSURE;
  const stack: OpenMapping[] = [];
  /** While >= 0, lines indented deeper than this belong to a block scalar. */
  let blockScalarParent = -1;

  const closeDeeperThan = (indent: number): void => {
    while (stack.length > 0 && stack[stack.length - 1]!.indent > indent) stack.pop();
  };

  let index = -1;
  for (let start = 0; start <= text.length; ) {
    index++;
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const lineStart = start;
    start = end + 1;
    if (blockScalarParent >= 0) {
      // Block scalar bodies are most of a skill file: skip them without slicing.
      let i = lineStart;
      while (i < end && text.charCodeAt(i) === 32) i++;
      const blank = i === end || (i === end - 1 && text.charCodeAt(i) === 13);
      if (blank || i - lineStart > blockScalarParent) continue;
      blockScalarParent = -1;
    }
    let line = text.slice(lineStart, end);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    if (line.includes("\t") && /^\s*\t/.test(line)) return UNSURE;
    if (line.startsWith("---") || line.startsWith("...") || line.startsWith("%")) {
      if (index === 0 && trimmed === "---") continue;
      return UNSURE;
    }

    let indent = leadingSpaces(line);
    let rest = line.slice(indent);
    let startsItem = false;
    while (rest === "-" || rest.startsWith("- ")) {
      const afterDash = rest.slice(1);
      const gap = leadingSpaces(afterDash);
      closeDeeperThan(indent);
      startsItem = true;
      if (afterDash.trim() === "") {
        rest = "";
        break;
      }
      indent += 1 + gap;
      rest = afterDash.slice(gap);
    }
    if (rest === "") continue;
    if (startsItem && BLOCK_SCALAR.test(rest)) {
      blockScalarParent = indent - 1;
      continue;
    }

    const match = PLAIN_KEY.exec(rest) ?? DOUBLE_QUOTED_KEY.exec(rest) ?? SINGLE_QUOTED_KEY.exec(rest);
    if (!match) {
      // Not a key: a scalar item or the continuation of a multi-line scalar, unless it opens
      // something that could carry keys of its own.
      const verdict = scanValue(rest);
      if (verdict.kind === "duplicate") return { ...verdict, line: index + 1 };
      if (verdict.kind === "unsure") return UNSURE;
      continue;
    }
    const key = keyText(rest.slice(0, match[0].length - 1));
    if (key === undefined || key === "<<") return UNSURE;
    const value = rest.slice(match[0].length).trim();
    const verdict = scanValue(value);
    if (verdict.kind === "duplicate") return { ...verdict, line: index + 1 };
    if (verdict.kind === "unsure") return UNSURE;

    if (startsItem) {
      // A sequence item begins a fresh mapping at the item's content column.
      while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    } else {
      closeDeeperThan(indent);
    }
    let top = stack[stack.length - 1];
    if (!top || top.indent < indent) {
      top = { indent, keys: new Set() };
      stack.push(top);
    }
    if (top.keys.has(key)) return { kind: "duplicate", line: index + 1, key };
    top.keys.add(key);

    if (BLOCK_SCALAR.test(value)) blockScalarParent = indent;
  }
  return CLEAN;
}
