/**
 * Edits one table of a TOML file (`[mcp_servers.skill-central]`, with any of its sub-tables) as
 * text: the table's own lines are replaced, inserted or removed, and no other byte changes.
 *
 * Why not a library: TOML libraries that keep formatting (toml-patch and its forks) re-derive a
 * patch from a whole parsed document, so "nothing else changed" is a hope; a section editor
 * touches only the lines of one table by construction. The result is then parsed with
 * smol-toml (spec-compliant, with line and column in its errors) and compared with the expected
 * document before anything is written (see `checkEdit` in config-document.ts).
 */
import { parse, TomlError } from "smol-toml";
import type { SyntaxProblem } from "./json-edit.ts";
import { EditRefused } from "./json-edit.ts";

export interface TomlDocument {
  text: string;
  data: Record<string, unknown>;
}

export function parseToml(text: string): TomlDocument | SyntaxProblem {
  try {
    return { text, data: parse(text) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof TomlError) {
      const message = error.message.replace(/^Invalid TOML document: /, "").split("\n")[0]!;
      return { line: error.line, column: error.column, message };
    }
    throw error;
  }
}

interface Header {
  /** Key path of `[a.b]` or `[[a.b]]`. */
  path: string[];
  array: boolean;
  /** Offset of the line the header is on. */
  start: number;
}

/** A table's lines: its header through its last key/value line (trailing blanks and comments excluded). */
interface Block {
  header: Header;
  start: number;
  /** Offset just after the newline of the block's last content line. */
  end: number;
}

const BARE_KEY = /[A-Za-z0-9_-]/;

/** Reads a dotted key (`a."b c".'d'`) starting at `i`; returns the parts and where it stopped. */
function readKey(text: string, from: number): { parts: string[]; end: number } {
  const parts: string[] = [];
  let i = from;
  for (;;) {
    while (text[i] === " " || text[i] === "\t") i++;
    const quote = text[i];
    if (quote === '"' || quote === "'") {
      let value = "";
      i++;
      while (i < text.length && text[i] !== quote) {
        if (quote === '"' && text[i] === "\\") {
          const { char, length } = readEscape(text, i);
          value += char;
          i += length;
        } else value += text[i++];
      }
      i++;
      parts.push(value);
    } else {
      const start = i;
      while (i < text.length && BARE_KEY.test(text[i]!)) i++;
      parts.push(text.slice(start, i));
    }
    while (text[i] === " " || text[i] === "\t") i++;
    if (text[i] !== ".") return { parts, end: i };
    i++;
  }
}

function readEscape(text: string, at: number): { char: string; length: number } {
  const c = text[at + 1];
  const simple: Record<string, string> = {
    b: "\b",
    t: "\t",
    n: "\n",
    f: "\f",
    r: "\r",
    '"': '"',
    "\\": "\\",
    e: "\x1b",
  };
  if (c !== undefined && simple[c] !== undefined) return { char: simple[c], length: 2 };
  const digits = c === "u" ? 4 : c === "U" ? 8 : c === "x" ? 2 : 0;
  if (digits > 0)
    return { char: String.fromCodePoint(parseInt(text.slice(at + 2, at + 2 + digits), 16)), length: 2 + digits };
  return { char: c ?? "", length: 2 };
}

/**
 * Every table header, found by a scanner that knows where strings (including multi-line ones),
 * comments and multi-line arrays or inline tables are, so a `[` inside a value is never taken
 * for a header. Also records each line where a key/value statement ends, for block ends.
 */
function scan(text: string): { headers: Header[]; statementEnds: number[] } {
  const headers: Header[] = [];
  const statementEnds: number[] = [];
  let i = 0;
  const n = text.length;
  const lineEnd = (from: number) => {
    const nl = text.indexOf("\n", from);
    return nl < 0 ? n : nl + 1;
  };
  while (i < n) {
    // At the start of a statement (or a blank/comment line).
    while (i < n && (text[i] === " " || text[i] === "\t")) i++;
    if (i >= n) break;
    const c = text[i];
    if (c === "\n" || c === "\r" || c === "#") {
      i = lineEnd(i);
      continue;
    }
    if (c === "[") {
      const start = text.lastIndexOf("\n", i - 1) + 1;
      const array = text[i + 1] === "[";
      const key = readKey(text, i + (array ? 2 : 1));
      headers.push({ path: key.parts, array, start });
      i = lineEnd(key.end);
      continue;
    }
    // A key/value statement: skip the key and `=`, then the value with its strings and brackets.
    const key = readKey(text, i);
    i = key.end + 1;
    let depth = 0;
    while (i < n) {
      const ch = text[i]!;
      if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
        const fence = text.slice(i, i + 3);
        let j = i + 3;
        for (;;) {
          const close = text.indexOf(fence, j);
          if (close < 0) {
            j = n;
            break;
          }
          if (fence === '"""' && isEscaped(text, close)) {
            j = close + 1;
            continue;
          }
          j = close + 3;
          // A closing fence may be followed by up to two more quotes that belong to the string.
          while (text[j] === fence[0] && j < close + 5) j++;
          break;
        }
        i = j;
      } else if (ch === '"' || ch === "'") {
        let j = i + 1;
        while (j < n && text[j] !== ch && text[j] !== "\n") j += ch === '"' && text[j] === "\\" ? 2 : 1;
        i = j + 1;
      } else if (ch === "#") {
        i = text.indexOf("\n", i);
        if (i < 0) i = n;
      } else if (ch === "[" || ch === "{") {
        depth++;
        i++;
      } else if (ch === "]" || ch === "}") {
        depth--;
        i++;
      } else if (ch === "\n") {
        i++;
        if (depth <= 0) break;
      } else i++;
    }
    statementEnds.push(i);
  }
  return { headers, statementEnds };
}

function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let j = at - 1; j >= 0 && text[j] === "\\"; j--) backslashes++;
  return backslashes % 2 === 1;
}

function blocks(text: string): Block[] {
  const { headers, statementEnds } = scan(text);
  return headers.map((header, index) => {
    const next = headers[index + 1]?.start ?? text.length;
    const headerLineEnd = text.indexOf("\n", header.start);
    let end = headerLineEnd < 0 ? text.length : headerLineEnd + 1;
    for (const e of statementEnds) if (e > header.start && e <= next && e > end) end = e;
    return { header, start: header.start, end };
  });
}

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((k, i) => k === b[i]);
const startsWith = (a: readonly string[], prefix: readonly string[]) =>
  a.length >= prefix.length && prefix.every((k, i) => k === a[i]);

/** TOML basic string. */
export function tomlString(value: string): string {
  return `"${value.replace(/[\\"\u0000-\u001f\u007f]/g, (c) => ({ "\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f" })[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

function tomlValue(value: unknown): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (value && typeof value === "object")
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`)
      .join(", ")} }`;
  throw new Error(`cannot write ${typeof value} as TOML`);
}

/** `[a.b]` followed by one `key = value` line per entry (objects become inline tables). */
function tableText(path: readonly string[], value: Record<string, unknown>, eol: string): string {
  const lines = [
    `[${path.map(tomlKey).join(".")}]`,
    ...Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`),
  ];
  return lines.join(eol) + eol;
}

function getPath(data: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = data;
  for (const key of path) {
    if (!node || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

export function getTomlValue(doc: TomlDocument, path: readonly string[]): unknown {
  return getPath(doc.data, path);
}

/**
 * The text with the table at `path` set to `value` (a flat table; objects become inline tables)
 * or removed (`undefined`). The table keeps its place when replaced; a new one goes after the
 * last table under the same parent (`[mcp_servers.*]`), else at the end of the file.
 */
export function editToml(
  doc: TomlDocument,
  path: readonly string[],
  value: Record<string, unknown> | undefined,
): string {
  const { text } = doc;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const all = blocks(text);
  const ours = all.filter((b) => !b.header.array && startsWith(b.header.path, path));
  const exists = getPath(doc.data, path) !== undefined;
  if (exists && !ours.some((b) => samePath(b.header.path, path))) {
    throw new EditRefused(`[${path.join(".")}] is written as dotted keys or an inline table here; change it by hand`);
  }

  // Removing our blocks: each goes with the blank line before it, so install then uninstall gives back the same bytes.
  const cut = (source: string, removed: readonly Block[]) => {
    let out = source;
    for (const block of [...removed].sort((a, b) => b.start - a.start)) {
      let start = block.start;
      const previousLine = out.lastIndexOf("\n", start - 2) + 1;
      let end = block.end;
      if (start > 0 && /^[ \t]*\r?\n$/.test(out.slice(previousLine, start))) start = previousLine;
      else if (start === 0) end += /^[ \t]*\r?\n/.exec(out.slice(end))?.[0].length ?? 0;
      out = out.slice(0, start) + out.slice(end);
    }
    return out;
  };

  if (value === undefined) return ours.length === 0 ? text : cut(text, ours);

  const table = tableText(path, value, eol);
  if (ours.length > 0) {
    const [first, ...rest] = [...ours].sort((a, b) => a.start - b.start);
    const replaced = text.slice(0, first!.start) + table + text.slice(first!.end);
    const shift = table.length - (first!.end - first!.start);
    return cut(
      replaced,
      rest.map((b) => ({ ...b, start: b.start + shift, end: b.end + shift })),
    );
  }
  const parent = path.slice(0, -1);
  const siblings = all.filter((b) => parent.length > 0 && startsWith(b.header.path, parent));
  if (siblings.length > 0) {
    const at = siblings.reduce((end, b) => Math.max(end, b.end), 0);
    const head = text.slice(0, at);
    return head + (head.endsWith("\n") ? "" : eol) + eol + table + text.slice(at);
  }
  if (text.trim() === "") return text + table;
  return text + (text.endsWith("\n") ? "" : eol) + eol + table;
}
