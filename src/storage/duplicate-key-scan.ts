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

const PLAIN_KEY = /^((?:[^\s:#'"{}[\],&*!|>%@`?-]|-(?=\S))(?:[^:#]|:(?=\S)|#(?<!\s#))*?)[ ]*:(?=\s|$)/;
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

/** A key's text as YAML reads it, or undefined when escapes make that uncertain. */
function keyText(token: string): string | undefined {
  const t = token.trim();
  if (t.startsWith('"')) return t.includes("\\") ? undefined : t.slice(1, -1);
  if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  return t;
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
      const quoted = ch === '"' ? /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i)) : /^'(?:[^']|'')*'/.exec(text.slice(i));
      if (!quoted) return UNSURE;
      if (top.expectingKey) top.token += quoted[0];
      i += quoted[0].length - 1;
    } else if (ch === ":" && /[\s,\]}]/.test(text[i + 1] ?? " ")) {
      if (!top.keys) return UNSURE; // `[a: b]` single-pair mappings: not modelled
      if (!top.expectingKey) return UNSURE;
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
      if (stack.length === 0) return /^\s*(#.*)?$/.test(text.slice(i + 1)) ? CLEAN : UNSURE;
    } else if (ch === "#" && /\s/.test(text[i - 1] ?? "")) {
      return UNSURE;
    } else if (top.token.trim() === "" && /[&*!?|>%@`]/.test(ch)) {
      return UNSURE;
    } else if (top.expectingKey) {
      top.token += ch;
    } else if (!/\s/.test(ch)) {
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
  const lines = text.split("\n");
  const stack: OpenMapping[] = [];
  /** While >= 0, lines indented deeper than this belong to a block scalar. */
  let blockScalarParent = -1;

  const closeDeeperThan = (indent: number): void => {
    while (stack.length > 0 && stack[stack.length - 1]!.indent > indent) stack.pop();
  };

  for (let index = 0; index < lines.length; index++) {
    let line = lines[index]!;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const trimmed = line.trim();
    if (blockScalarParent >= 0) {
      if (trimmed === "" || leadingSpaces(line) > blockScalarParent) continue;
      blockScalarParent = -1;
    }
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
    const key = match[1]!;
    if (key === "<<" || (rest.startsWith('"') && key.includes("\\"))) return UNSURE;
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
