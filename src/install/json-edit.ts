/**
 * Edits one property of a JSON or JSONC file as text, leaving every other byte alone.
 *
 * jsonc-parser gives the syntax tree with offsets and applies edits; the edits themselves are
 * computed here. Its own `modify` was measured to re-indent the neighbouring property's lines
 * when given formatting options (a one-line sibling object became five lines, tabs became
 * spaces) and to insert minified JSON without them, so it cannot keep a user's file as it was.
 */
import {
  applyEdits,
  parseTree,
  printParseErrorCode,
  type Edit,
  type Node,
  type ParseError,
} from "jsonc-parser/lib/esm/main.js";
import type { SourcePosition } from "../diagnostics.ts";

/** What the client itself accepts: strict JSON, or comments and trailing commas too. */
export interface JsonDialect {
  comments: boolean;
  trailingCommas: boolean;
}

export const STRICT_JSON: JsonDialect = { comments: false, trailingCommas: false };
export const JSONC: JsonDialect = { comments: true, trailingCommas: true };

export interface SyntaxProblem extends SourcePosition {
  message: string;
}

export interface JsonDocument {
  text: string;
  /** The top-level node; undefined for an empty file. */
  root: Node | undefined;
}

/** 1-based line and column of an offset. */
export function positionAt(text: string, offset: number): SourcePosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

const MESSAGES: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "property name expected",
  ValueExpected: "value expected",
  ColonExpected: "colon expected",
  CommaExpected: "comma expected",
  CloseBraceExpected: "closing brace expected",
  CloseBracketExpected: "closing bracket expected",
  EndOfFileExpected: "end of file expected (text after the top-level value)",
  InvalidCommentToken: "comments are not allowed in this file",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in string",
};

function describe(error: ParseError, text: string): SyntaxProblem {
  let message = MESSAGES[printParseErrorCode(error.error)] ?? "invalid JSON";
  // A trailing comma shows up as a missing name or value right before a closing bracket.
  if (
    (message === "property name expected" || message === "value expected") &&
    /[}\]]/.test(text[error.offset] ?? "") &&
    /,\s*$/.test(text.slice(0, error.offset))
  ) {
    message = "trailing comma (not allowed in this file)";
  }
  return { ...positionAt(text, error.offset), message };
}

/** The file parsed as the client would parse it, or where and why it does not parse. */
export function parseJson(text: string, dialect: JsonDialect): JsonDocument | SyntaxProblem {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, {
    allowTrailingComma: dialect.trailingCommas,
    disallowComments: !dialect.comments,
    allowEmptyContent: true,
  });
  const first = errors[0];
  if (first) return describe(first, text);
  return { text, root };
}

export function isSyntaxProblem(value: JsonDocument | SyntaxProblem): value is SyntaxProblem {
  return "message" in value;
}

/** Refused edits: the file is valid but not in a shape we can change safely. */
export class EditRefused extends Error {
  override readonly name = "EditRefused";
}

function nodeValue(node: Node | undefined): unknown {
  if (!node) return undefined;
  switch (node.type) {
    case "object":
      return Object.fromEntries(
        (node.children ?? []).map((p) => [p.children?.[0]?.value as string, nodeValue(p.children?.[1])]),
      );
    case "array":
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

/** The document's value (later duplicate keys win, as in `JSON.parse`). */
export function jsonValue(doc: JsonDocument): unknown {
  return nodeValue(doc.root);
}

/** The property node named `key` in an object node (the last one, as `JSON.parse` keeps). */
function property(object: Node, key: string): Node | undefined {
  return (object.children ?? []).findLast((p) => p.children?.[0]?.value === key);
}

/** The value at a path of object keys, if every step is an object. */
export function getJsonValue(doc: JsonDocument, path: readonly string[]): unknown {
  let node = doc.root;
  for (const key of path) {
    if (node?.type !== "object") return undefined;
    node = property(node, key)?.children?.[1];
  }
  return nodeValue(node);
}

interface Style {
  indent: string;
  eol: string;
}

/** The file's own indentation unit and line ending, so inserted lines look like their neighbours. */
function detectStyle(text: string): Style {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  let indent = "  ";
  let smallest = Infinity;
  for (const match of text.matchAll(/^([ \t]+)["}\]]/gm)) {
    const lead = match[1]!;
    if (lead.startsWith("\t")) return { indent: "\t", eol };
    if (lead.length < smallest) smallest = lead.length;
  }
  if (smallest !== Infinity) indent = " ".repeat(Math.min(smallest, 8));
  return { indent, eol };
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

function indentOfLine(text: string, offset: number): string {
  const start = lineStartOf(text, offset);
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** True when only spaces or tabs come before `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStartOf(text, offset), offset));
}

/** Skips whitespace and comments; returns the offset of the next token. */
function skipTrivia(text: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith("//", i)) {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
    } else if (text.startsWith("/*", i)) {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
    } else return i;
  }
}

/** After `from`, skips spaces, tabs and comments that stay on the same line; returns where it stopped. */
function skipSameLine(text: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
    if (text.startsWith("//", i)) {
      const end = text.indexOf("\n", i);
      return end < 0 ? text.length : end;
    }
    if (text.startsWith("/*", i)) {
      const end = text.indexOf("*/", i + 2);
      if (end < 0 || text.slice(i, end).includes("\n")) return i;
      i = end + 2;
    } else return i;
  }
}

function endOf(node: Node): number {
  return node.offset + node.length;
}

/** `value` as JSON whose continuation lines start at `base` indentation. */
function formatValue(value: unknown, style: Style, base: string, compact: boolean): string {
  if (compact) return JSON.stringify(value);
  return JSON.stringify(value, null, style.indent)
    .split("\n")
    .join(style.eol + base);
}

/** Nested objects for the keys left of a path: `["a","b"], v` → `{ a: { b: v } }`. */
function nest(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

function insertProperty(text: string, object: Node, key: string, value: unknown, style: Style): Edit[] {
  const open = object.offset;
  const close = endOf(object) - 1;
  const children = object.children ?? [];
  const oneLine = !text.slice(open, close).includes("\n");
  const first = children[0];
  const compact = (oneLine && children.length > 0) || (first !== undefined && !startsLine(text, first.offset));
  const keyText = JSON.stringify(key);

  if (compact) {
    const last = children.at(-1)!;
    const gap = /:\s/.test(text.slice(last.offset, endOf(last))) ? " " : "";
    const sep = /,\s/.test(text.slice(first!.offset, endOf(last) + 2)) || children.length === 1 ? ", " : ",";
    return [
      { offset: endOf(last), length: 0, content: `${sep}${keyText}:${gap}${formatValue(value, style, "", true)}` },
    ];
  }

  if (children.length === 0) {
    const objectIndent = indentOfLine(text, open);
    const childIndent = objectIndent + style.indent;
    const line = `${childIndent}${keyText}: ${formatValue(value, style, childIndent, false)}`;
    const inside = text.slice(open + 1, close);
    if (/^\s*$/.test(inside))
      return [
        { offset: open + 1, length: close - open - 1, content: `${style.eol}${line}${style.eol}${objectIndent}` },
      ];
    // Only comments inside: our property goes first, the comments stay below it.
    return [{ offset: open + 1, length: 0, content: `${style.eol}${line}` }];
  }

  const last = children.at(-1)!;
  const childIndent = indentOfLine(text, first!.offset);
  const afterLast = skipTrivia(text, endOf(last));
  const hasComma = text[afterLast] === ",";
  // Insert at the end of the last property's line, after its comma and any comment there.
  let at = skipSameLine(text, hasComma ? afterLast + 1 : endOf(last));
  const atLineEnd = text[at] === "\n" || text[at] === "\r" || at >= close;
  if (!atLineEnd) at = hasComma ? afterLast + 1 : endOf(last);
  const line = `${childIndent}${keyText}: ${formatValue(value, style, childIndent, false)}${hasComma ? "," : ""}`;
  const edits: Edit[] = [];
  if (!hasComma) edits.push({ offset: endOf(last), length: 0, content: "," });
  edits.push({ offset: at, length: 0, content: `${style.eol}${line}` });
  return edits;
}

function removeProperty(text: string, object: Node, prop: Node): Edit[] {
  const children = object.children ?? [];
  const index = children.indexOf(prop);
  const previous = children[index - 1];
  const next = children[index + 1];
  const afterProp = skipTrivia(text, endOf(prop));
  const ownComma = text[afterProp] === ",";
  if (children.length === 1) {
    // The only property: when nothing but whitespace would remain, the object becomes `{}` again.
    const open = object.offset + 1;
    const close = endOf(object) - 1;
    const rest = text.slice(open, prop.offset) + text.slice(ownComma ? afterProp + 1 : endOf(prop), close);
    if (/^\s*$/.test(rest)) return [{ offset: open, length: close - open, content: "" }];
  }
  if (startsLine(text, prop.offset)) {
    let end = skipSameLine(text, ownComma ? afterProp + 1 : endOf(prop));
    if (text[end] === "\r" && text[end + 1] === "\n") end += 2;
    else if (text[end] === "\n") end += 1;
    // Only when nothing else shares the line is the whole line ours to remove.
    if (text[end - 1] === "\n" && (next === undefined || next.offset >= end)) {
      const start = lineStartOf(text, prop.offset);
      const edits: Edit[] = [{ offset: start, length: end - start, content: "" }];
      // The last property goes: the comma before it would now trail, unless the file already used trailing commas.
      if (next === undefined && previous !== undefined && !ownComma) {
        const comma = skipTrivia(text, endOf(previous));
        if (text[comma] === ",") edits.push({ offset: comma, length: 1, content: "" });
      }
      return edits;
    }
  }
  return removeInline(text, prop, previous, next, ownComma, afterProp);
}

function removeInline(
  text: string,
  prop: Node,
  previous: Node | undefined,
  next: Node | undefined,
  ownComma: boolean,
  afterProp: number,
): Edit[] {
  if (next) return [{ offset: prop.offset, length: next.offset - prop.offset, content: "" }];
  if (previous) {
    const comma = skipTrivia(text, endOf(previous));
    const end = ownComma ? afterProp + 1 : endOf(prop);
    return [{ offset: comma, length: end - comma, content: "" }];
  }
  return [{ offset: prop.offset, length: (ownComma ? afterProp + 1 : endOf(prop)) - prop.offset, content: "" }];
}

/**
 * The text with `value` at `path` (object keys), created with any missing parent objects, or
 * the value removed when `value` is undefined. Nothing outside that property changes.
 */
export function editJson(doc: JsonDocument, path: readonly string[], value: unknown): string {
  const { text } = doc;
  const style = detectStyle(text);
  if (!doc.root) {
    if (value === undefined) return text;
    if (text.trim() !== "") throw new EditRefused("the file has comments but no JSON value; add {} to it first");
    return formatValue(nest(path, value), style, "", false) + style.eol;
  }
  if (doc.root.type !== "object") throw new EditRefused("the top level of the file is not an object");
  let object = doc.root;
  for (let depth = 0; depth < path.length; depth++) {
    const key = path[depth]!;
    const prop = property(object, key);
    const isLast = depth === path.length - 1;
    if (!prop) {
      if (value === undefined) return text;
      return applyEdits(text, insertProperty(text, object, key, nest(path.slice(depth + 1), value), style));
    }
    if (isLast) {
      if (value === undefined) return applyEdits(text, removeProperty(text, object, prop));
      const valueNode = prop.children![1]!;
      const base = indentOfLine(text, prop.offset);
      const compact = !startsLine(text, prop.offset) && !text.slice(valueNode.offset, endOf(valueNode)).includes("\n");
      return applyEdits(text, [
        { offset: valueNode.offset, length: valueNode.length, content: formatValue(value, style, base, compact) },
      ]);
    }
    const inner = prop.children?.[1];
    if (inner?.type !== "object") throw new EditRefused(`"${path.slice(0, depth + 1).join(".")}" is not an object`);
    object = inner;
  }
  return text;
}
