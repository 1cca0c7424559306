/** The hint for YAML's "nested mappings" error: a key indented too deep, or a value that needs quotes. */
import type { SourcePosition } from "../diagnostics.ts";

/**
 * Two mistakes reach the `yaml` package as the same error ("Nested mappings are not allowed in
 * compact mappings"): a key indented one level too deep under a key with a plain value
 * (`description: x` then `  type: prompt`: the second line continues the text, which then holds
 * ": "), and text that holds ": " itself (`description: Fix: the bug`). The fixes differ
 * (un-indent the line; quote the value), so the text around the error decides which it is.
 */
export interface IndentAdvice {
  message: string;
  hint: string;
  position: SourcePosition;
}

interface Line {
  /** 0-based. */
  index: number;
  text: string;
  indent: number;
}

/** The key on a line (`key:` or `- key:`), where it starts, and the text after it. */
// A plain key ends in a character that is neither a space nor ":", so no two parts of the
// pattern can match the same spaces: linear on any line (this runs on hostile files too).
const KEY_LINE =
  /^([ ]*(?:-[ ]+)*)("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|-?[^\s#'"\-?:,[\]{}](?:[^:#]*[^\s:#])?)[ \t]*:(?:[ \t]+|$)/;

function linesOf(text: string): Line[] {
  return text.split("\n").map((raw, index) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    return { index, text: line, indent: /^[ ]*/.exec(line)![0].length };
  });
}

function lineAt(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Whether a line is blank or only a comment (neither ends a plain value nor is a key). */
function isQuiet(line: Line): boolean {
  return /^\s*(?:#.*)?$/.test(line.text);
}

/** `: ` (or `:` at the end) in a plain value, before any ` #` comment; its index, or -1. */
function colonIn(value: string): number {
  const comment = value.search(/(?:^|[ \t])#/);
  const body = comment < 0 ? value : value.slice(0, comment);
  const match = /:(?:[ \t]|$)/.exec(body);
  return match ? match.index : -1;
}

function keyName(raw: string): string {
  const name = raw.replace(/^["']|["']$/g, "");
  return name.length > 40 ? `${name.slice(0, 39)}…` : name;
}

function quoted(value: string): string {
  const text = value.replace(/[ \t]+#.*$/, "").trimEnd();
  return text.length <= 60
    ? `${text.includes('"') && !text.includes("'") ? `'${text}'` : JSON.stringify(text)}`
    : '"…"';
}

/**
 * The columns a line could line up with: the keys of the mappings that enclose it, nearest
 * first (each one less indented than the last), from the lines above `before`.
 */
function enclosingKeys(lines: Line[], before: number): { column: number; key: string; line: number }[] {
  const found: { column: number; key: string; line: number }[] = [];
  let limit = Infinity;
  for (let i = before - 1; i >= 0 && limit > 0; i--) {
    const line = lines[i]!;
    if (isQuiet(line)) continue;
    const key = KEY_LINE.exec(line.text);
    const column = key ? key[1]!.length : line.indent;
    if (column >= limit) continue;
    limit = column;
    if (key) found.push({ column: column + 1, key: keyName(key[2]!), line: i + 1 });
  }
  return found;
}

/**
 * Lines named in the words count from `lineBase + 1` (a frontmatter starts below its `---`);
 * positions are in `text`.
 */

/**
 * For a "Nested mappings are not allowed in compact mappings" error at `offset` (where a plain
 * value starts): a key indented too deep after it, or ": " in the value itself. Undefined when
 * the text is neither (the caller keeps the general advice).
 */
export function compactMappingAdvice(text: string, offset: number, lineBase = 0): IndentAdvice | undefined {
  const n = (index: number) => index + 1 + lineBase;
  const lines = linesOf(text);
  const first = lineAt(text, offset);
  const start = lines[first];
  if (!start) return undefined;
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const column = offset - lineStart;
  const value = start.text.slice(column);
  if (/^["'[{]/.test(value)) return undefined;
  const owner = KEY_LINE.exec(start.text.slice(0, column));
  const ownerKey =
    owner && owner[0].length === column ? { name: keyName(owner[2]!), column: owner[1]!.length + 1 } : undefined;

  const colon = colonIn(value);
  if (colon >= 0) {
    const what = ownerKey ? `the value of "${ownerKey.name}"` : "this text";
    return {
      message: `${what} holds ": " (column ${column + colon + 1}), which YAML reads as the start of a nested key`,
      hint: ownerKey ? `quote the value: ${ownerKey.name}: ${quoted(value)}` : `quote the text: ${quoted(value)}`,
      position: { line: first + 1, column: column + 1 },
    };
  }
  // The value runs on over deeper lines until one of them holds ": ": that line is a key.
  for (let i = first + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (isQuiet(line)) continue;
    const key = KEY_LINE.exec(line.text);
    if (!key) {
      if (colonIn(line.text) >= 0) return undefined;
      continue;
    }
    const name = keyName(key[2]!);
    const at = { line: i + 1, column: key[1]!.length + 1 };
    if (!ownerKey) {
      return {
        message: `"${name}:" on line ${n(i)} is indented deeper than the line it follows, so YAML reads it as more of the text that starts on line ${n(first)}`,
        hint: `un-indent line ${n(i)} to the column of the key it belongs beside, or quote the text on line ${n(first)} if the line is part of it`,
        position: at,
      };
    }
    return {
      message: `"${name}:" on line ${n(i)} is indented deeper than "${ownerKey.name}:" on line ${n(first)}, so YAML reads it as more of ${ownerKey.name}'s text`,
      hint: `un-indent line ${n(i)} to column ${ownerKey.column}, in line with "${ownerKey.name}:" (or, if it is meant as text, quote ${ownerKey.name}'s value)`,
      position: at,
    };
  }
  return undefined;
}

/**
 * For "All mapping items must start at the same column" at `offset`: the key that is out of
 * line, and the columns it could move to (the keys of the mappings above it).
 */
export function badIndentAdvice(text: string, offset: number, lineBase = 0): IndentAdvice | undefined {
  const n = (index: number) => index + 1 + lineBase;
  const lines = linesOf(text);
  let index = lineAt(text, offset);
  while (lines[index] && isQuiet(lines[index]!)) index++;
  const line = lines[index];
  if (!line) return undefined;
  const key = KEY_LINE.exec(line.text);
  if (!key) return undefined;
  const name = keyName(key[2]!);
  const column = key[1]!.length + 1;
  const targets = enclosingKeys(lines, index).filter((k) => k.column !== column);
  if (targets.length === 0) return undefined;
  const position = { line: index + 1, column };
  const deeper = targets.filter((k) => k.column < column);
  const shallower = targets.filter((k) => k.column > column);
  const nearest = deeper[0];
  if (nearest && shallower.length === 0) {
    return {
      message: `"${name}:" on line ${n(index)} is indented deeper than "${nearest.key}:" on line ${n(nearest.line - 1)}, which has a value already`,
      hint: `un-indent line ${n(index)} to column ${nearest.column}, in line with "${nearest.key}:"`,
      position,
    };
  }
  const options = [shallower[shallower.length - 1], nearest]
    .filter((k) => k !== undefined)
    .map((k) => `column ${k.column} (in line with "${k.key}:" on line ${n(k.line - 1)})`);
  return {
    message: `"${name}:" on line ${n(index)} starts at column ${column}, in line with no key above it`,
    hint: `move it to ${options.join(" or ")}`,
    position,
  };
}
