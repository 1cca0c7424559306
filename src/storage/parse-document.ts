import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type Node, type YAMLError } from "yaml";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { scanDuplicateKeys } from "./duplicate-key-scan.ts";
import type { SourceText } from "./read.ts";

/**
 * Finds where a field of the document is written, for messages that point at it. With `within`
 * (a 1-based position inside a string value, e.g. a template error), it maps that position
 * through the string's layout in the file.
 */
export type Locator = (path: readonly (string | number)[], within?: SourcePosition) => SourcePosition | undefined;

export interface ParsedDocument {
  data: unknown;
  locate: Locator;
}

export type ParseResult = { ok: true; doc: ParsedDocument } | { ok: false; diagnostic: Diagnostic };

interface PreciseDocument {
  doc: Document.Parsed;
  lines: LineCounter;
}

function parsePrecisely(text: string): PreciseDocument {
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
 * locator runs on the first question and never for a clean file.
 */
function lazyLocator(text: string, precise?: PreciseDocument): Locator {
  let cached = precise;
  return (path, within) => {
    cached ??= parsePrecisely(text);
    const node = nodeAt(cached.doc, path);
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const start = position(cached.lines, offset);
    if (!within || !isScalar(node)) return start;
    if (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED") {
      // Content starts on the line after the `|` header, at the first content line's indent.
      const contentLine = start.line + within.line;
      const lineStart = cached.lines.lineStarts[contentLine - 1];
      const indent = lineStart === undefined ? 0 : /^ */.exec(text.slice(lineStart))![0].length;
      return { line: contentLine, column: indent + within.column };
    }
    const quote = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE" ? 1 : 0;
    return within.line === 1 ? { line: start.line, column: start.column + quote + within.column - 1 } : start;
  };
}

function syntaxDiagnostic(file: string, lines: LineCounter, error: YAMLError | undefined, fallback: unknown): Diagnostic {
  if (error) {
    const duplicate = error.code === "DUPLICATE_KEY";
    return {
      severity: "error",
      code: duplicate ? "duplicate-key" : "yaml-syntax",
      file,
      position: position(lines, error.pos[0]),
      message: duplicate
        ? `skipped: duplicate key in a mapping (${firstLine(error.message)}); keep one of them`
        : `skipped: invalid YAML: ${firstLine(error.message)}`,
    };
  }
  return { severity: "error", code: "yaml-syntax", file, message: `skipped: invalid YAML: ${String(fallback)}` };
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}

function fromPrecise(source: SourceText): ParseResult {
  const precise = parsePrecisely(source.text);
  const error = precise.doc.errors[0];
  if (error) return { ok: false, diagnostic: syntaxDiagnostic(source.file, precise.lines, error, "") };
  return { ok: true, doc: { data: precise.doc.toJS({ maxAliasCount: 100 }), locate: lazyLocator(source.text, precise) } };
}

/**
 * Parses a skill file (YAML, or JSON which is YAML's subset). Fast path: when the duplicate-key
 * scan is sure the text has none, `Bun.YAML.parse`; anything it cannot vouch for, and every
 * error, goes through the `yaml` package for exact positions and strict key rules.
 */
export function parseSkillDocument(source: SourceText): ParseResult {
  if (source.file.endsWith(".json")) return parseJson(source);
  if (scanDuplicateKeys(source.text).kind !== "clean") return fromPrecise(source);
  let data: unknown;
  try {
    data = Bun.YAML.parse(source.text);
  } catch {
    return fromPrecise(source);
  }
  return { ok: true, doc: { data, locate: lazyLocator(source.text) } };
}

function parseJson(source: SourceText): ParseResult {
  let data: unknown;
  try {
    data = JSON.parse(source.text);
  } catch (error) {
    const precise = parsePrecisely(source.text);
    const reason = error instanceof Error ? error.message : error;
    const diagnostic = syntaxDiagnostic(source.file, precise.lines, precise.doc.errors[0], reason);
    return { ok: false, diagnostic: { ...diagnostic, message: diagnostic.message.replace("invalid YAML", "invalid JSON") } };
  }
  // JSON.parse keeps the last of duplicate keys; the YAML reading of the same text reports them.
  const precise = parsePrecisely(source.text);
  const duplicate = precise.doc.errors.find((e) => e.code === "DUPLICATE_KEY");
  if (duplicate) return { ok: false, diagnostic: syntaxDiagnostic(source.file, precise.lines, duplicate, "") };
  return { ok: true, doc: { data, locate: lazyLocator(source.text, precise) } };
}
