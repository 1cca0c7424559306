import type { Document, LineCounter, Node, YAMLError } from "yaml";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { scanDuplicateKeys } from "./duplicate-key-scan.ts";
import { fastParseYaml } from "./fast-yaml.ts";
import { jsonErrorOffset } from "./json-error.ts";
import type { SourceText } from "./read.ts";

/**
 * The `yaml` package, loaded on first use: it is needed only for positions (something is wrong)
 * and for documents the fast reader leaves to it, never on the way to a first answer.
 */
function yaml(): typeof import("yaml") {
  return require("yaml") as typeof import("yaml");
}

/**
 * Finds where a field of the document is written, for messages that point at it. With `within`
 * (a 1-based position inside a string value, e.g. a template error), it maps that position
 * through the string's layout in the file.
 */
export type Locator = (path: readonly (string | number)[], within?: SourcePosition) => SourcePosition | undefined;

/** Where the key of the entry at `path` is written (for messages about the key itself). */
export type KeyLocator = (path: readonly (string | number)[]) => SourcePosition | undefined;

export interface ParsedDocument {
  data: unknown;
  locate: Locator;
  locateKey: KeyLocator;
}

export type ParseResult = { ok: true; doc: ParsedDocument } | { ok: false; diagnostic: Diagnostic };

interface PreciseDocument {
  doc: Document.Parsed;
  lines: LineCounter;
}

function parsePrecisely(text: string): PreciseDocument {
  const { LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  return { doc, lines };
}

function position(lines: LineCounter, offset: number): SourcePosition {
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}

/** The deepest node along `path` that exists: a missing field points at its parent mapping. */
function nodeAt(doc: Document.Parsed, path: readonly (string | number)[]): Node | undefined {
  const { isMap, isSeq } = yaml();
  let node: unknown = doc.contents;
  for (const step of path) {
    if (isMap(node) || isSeq(node)) {
      const next: unknown = node.get(step, true);
      if (next === undefined) {
        // For a map key, point at the pair's key when the value is empty (e.g. `tags:`).
        break;
      }
      node = next;
    } else break;
  }
  return node && typeof node === "object" && "range" in node ? (node as Node) : undefined;
}

/**
 * Positions are only needed when something is wrong, which is rare: the precise parse behind the
 * locators runs on the first question and never for a clean file.
 */
function lazyLocators(text: string, precise?: PreciseDocument): Pick<ParsedDocument, "locate" | "locateKey"> {
  let cached = precise;
  const get = (): PreciseDocument => (cached ??= parsePrecisely(text));
  const locate: Locator = (path, within) => {
    const { isScalar } = yaml();
    const { doc, lines } = get();
    const node = nodeAt(doc, path);
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const start = position(lines, offset);
    if (!within || !isScalar(node)) return start;
    if (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED") {
      // Content starts on the line after the `|` header, at the first content line's indent.
      // The block's indentation is that of its first non-blank line; deeper lines keep the rest.
      const contentLine = start.line + within.line;
      const blockStart = lines.lineStarts[start.line] ?? 0;
      const firstContent = /^(?:[ ]*\r?\n)*([ ]*)/.exec(text.slice(blockStart))!;
      return { line: contentLine, column: firstContent[1]!.length + within.column };
    }
    // Folded blocks and escape sequences shift columns further; positions there are approximate.
    const quote = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE" ? 1 : 0;
    return within.line === 1 ? { line: start.line, column: start.column + quote + within.column - 1 } : start;
  };
  const locateKey = (path: readonly (string | number)[]): SourcePosition | undefined => {
    const { isMap, isScalar } = yaml();
    const { doc, lines } = get();
    const parent = path.length <= 1 ? doc.contents : nodeAt(doc, path.slice(0, -1));
    if (isMap(parent)) {
      const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === path[path.length - 1]);
      const offset = pair && isScalar(pair.key) ? pair.key.range?.[0] : undefined;
      if (offset !== undefined) return position(lines, offset);
    }
    return locate(path);
  };
  return { locate, locateKey };
}

/** The yaml package places a duplicate-key error after the previous value; the key is the next token. */
function duplicateKeyOffset(text: string, offset: number): number {
  const rest = text.slice(offset);
  const match = /^(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*/.exec(rest);
  return offset + (match ? match[0].length : 0);
}

/** What to do about the YAML errors people make by hand; the parser's own words say what is wrong. */
function yamlHint(error: YAMLError): string {
  if (error.code === "TAB_AS_INDENT") return "indent with spaces, not tabs";
  const flow = /end with a ([\]}])/.exec(error.message);
  if (flow) return `close it with ${flow[1]} (on the same line, or indented), or quote the text if it is not a ${flow[1] === "]" ? "list" : "mapping"}`;
  if (error.code === "BAD_INDENT") return "line up the keys of one mapping, and the items of one list, at the same indentation";
  return 'quote text that contains ": " or " #", or that starts with [ { * & ! | > % @ or `';
}

/** `id` for a duplicate key written at `offset` (plain or quoted), for naming it in the message. */
function keyAt(text: string, offset: number): string | undefined {
  const match = /^(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'|([^\s:#][^:#\n]*?))\s*:/.exec(text.slice(offset, offset + 200));
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

function syntaxDiagnostic(file: string, lines: LineCounter, error: YAMLError | undefined, fallback: unknown, text = ""): Diagnostic {
  if (error) {
    const duplicate = error.code === "DUPLICATE_KEY";
    let offset = duplicate ? duplicateKeyOffset(text, error.pos[0]) : error.pos[0];
    // An unclosed [ or { is reported where the text ends; point at the bracket that is left open.
    const flow = /end with a ([\]}])/.exec(error.message);
    if (flow) offset = Math.max(0, text.lastIndexOf(flow[1] === "]" ? "[" : "{", offset - 1)) || offset;
    const key = duplicate ? keyAt(text, offset) : undefined;
    return {
      severity: "error",
      code: duplicate ? "duplicate-key" : "yaml-syntax",
      file,
      position: position(lines, offset),
      message: duplicate ? `duplicate key${key === undefined ? "" : ` "${key}"`} in a mapping (${firstLine(error.message)})` : `invalid YAML: ${firstLine(error.message)}`,
      hint: duplicate ? "keep one of them: the file is not loaded while both are there" : yamlHint(error),
    };
  }
  return { severity: "error", code: "yaml-syntax", file, message: `invalid YAML: ${String(fallback)}` };
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}

function fromPrecise(source: SourceText): ParseResult {
  const precise = parsePrecisely(source.text);
  const error = precise.doc.errors[0];
  if (error) return { ok: false, diagnostic: syntaxDiagnostic(source.file, precise.lines, error, "", source.text) };
  let data: unknown;
  try {
    data = precise.doc.toJS({ maxAliasCount: 100 });
  } catch (failure) {
    // Unresolved aliases and alias bombs only surface when the document is turned into data.
    const reason = failure instanceof Error ? failure.message : String(failure);
    return { ok: false, diagnostic: { severity: "error", code: "yaml-syntax", file: source.file, message: `invalid YAML: ${reason}` } };
  }
  return { ok: true, doc: { data, ...lazyLocators(source.text, precise) } };
}

/**
 * Parses a YAML file (or JSON, which is YAML's subset): skill files and config files alike.
 * Fast path: the fast reader (fast-yaml.ts), which answers only when it is sure; then, when the
 * duplicate-key scan is sure the text has none, `Bun.YAML.parse`; anything neither can vouch
 * for, and every error, goes through the `yaml` package for exact positions and strict key rules.
 */
export function parseYamlDocument(source: SourceText): ParseResult {
  if (source.file.endsWith(".json")) return parseJson(source);
  const fast = fastParseYaml(source.text);
  if (fast) return { ok: true, doc: { data: fast.data, ...lazyLocators(source.text) } };
  if (scanDuplicateKeys(source.text).kind !== "clean") return fromPrecise(source);
  let data: unknown;
  try {
    data = Bun.YAML.parse(source.text);
  } catch {
    return fromPrecise(source);
  }
  return { ok: true, doc: { data, ...lazyLocators(source.text) } };
}

function parseJson(source: SourceText): ParseResult {
  let data: unknown;
  try {
    data = JSON.parse(source.text);
  } catch (error) {
    const precise = parsePrecisely(source.text);
    const reason = error instanceof Error ? error.message.replace(/^JSON Parse error: /, "") : String(error);
    // JSON's own grammar says where; the YAML reading accepts much that JSON does not.
    const offset = jsonErrorOffset(source.text);
    const diagnostic: Diagnostic = {
      severity: "error",
      code: "yaml-syntax",
      file: source.file,
      ...(offset >= 0 ? { position: position(precise.lines, offset) } : precise.doc.errors[0] && { position: position(precise.lines, precise.doc.errors[0].pos[0]) }),
      message: `invalid JSON: ${reason}`,
      hint: "JSON has no comments, trailing commas or single quotes; a .yaml file may be easier to write by hand",
    };
    return { ok: false, diagnostic };
  }
  // JSON.parse keeps the last of duplicate keys; the YAML reading of the same text reports them.
  const precise = parsePrecisely(source.text);
  const duplicate = precise.doc.errors.find((e) => e.code === "DUPLICATE_KEY");
  if (duplicate) return { ok: false, diagnostic: syntaxDiagnostic(source.file, precise.lines, duplicate, "", source.text) };
  return { ok: true, doc: { data, ...lazyLocators(source.text, precise) } };
}
