/**
 * Skill and config documents (YAML and JSON) parsed the fast way first, with positions worked out
 * only when something must be pointed at; repeated keys are errors.
 */
import type { Document, LineCounter, Node, YAMLError } from "yaml";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { fastParseYaml } from "./fast-yaml.ts";
import { jsonErrorOffset } from "./json-error.ts";
import { badIndentAdvice, compactMappingAdvice, type IndentAdvice } from "./yaml-indent-hint.ts";
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
  // The package's own duplicate check (`uniqueKeys`) compares each key with every earlier one: a
  // 20,000-key file took seconds. `firstDuplicateKey` does the same check in one pass.
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false });
  return { doc, lines };
}

/**
 * Where the first repeated key of any mapping in the document is written (by position in the
 * text), or undefined. Keys are equal as the `yaml` package's `uniqueKeys` judges them: scalars
 * with the same value (`1` and `"1"` differ; so does NaN from itself).
 */
function firstDuplicateKey(doc: Document.Parsed): number | undefined {
  const { isMap, isPair, isScalar, isCollection } = yaml();
  let first: number | undefined;
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isPair(node)) {
      stack.push(node.key, node.value);
      continue;
    }
    if (!isCollection(node)) continue;
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key;
        if (!isScalar(key) || Number.isNaN(key.value)) continue;
        if (!seen.has(key.value)) seen.add(key.value);
        else if (key.range && (first === undefined || key.range[0] < first)) first = key.range[0];
      }
    }
    for (const item of node.items) stack.push(item);
  }
  return first;
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

/** What to do about the YAML errors people make by hand; the parser's own words say what is wrong. */
function yamlHint(error: YAMLError): string {
  if (error.code === "TAB_AS_INDENT") return "indent with spaces, not tabs";
  const flow = /end with a ([\]}])/.exec(error.message);
  if (flow)
    return `close it with ${flow[1]} (on the same line, or indented), or quote the text if it is not a ${flow[1] === "]" ? "list" : "mapping"}`;
  if (error.code === "BAD_INDENT")
    return "line up the keys of one mapping, and the items of one list, at the same indentation";
  return 'quote text that contains ": " or " #", or that starts with [ { * & ! | > % @ or `';
}

/** `id` for a duplicate key written at `offset` (plain or quoted), for naming it in the message. */
function keyAt(text: string, offset: number): string | undefined {
  const match = /^(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'|([^\s:#][^:#\n]*?))\s*:/.exec(text.slice(offset, offset + 200));
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

function syntaxDiagnostic(
  file: string,
  lines: LineCounter,
  error: YAMLError | undefined,
  fallback: unknown,
  text = "",
  lineBase = 0,
): Diagnostic {
  if (error) {
    const duplicate = error.code === "DUPLICATE_KEY";
    let offset = error.pos[0];
    // An unclosed [ or { is reported where the text ends; point at the bracket that is left open.
    const flow = /end with a ([\]}])/.exec(error.message);
    if (flow) offset = Math.max(0, text.lastIndexOf(flow[1] === "]" ? "[" : "{", offset - 1)) || offset;
    const key = duplicate ? keyAt(text, offset) : undefined;
    const advice = indentAdvice(error, text, offset, lineBase);
    if (advice)
      return {
        severity: "error",
        code: "yaml-syntax",
        file,
        position: advice.position,
        message: `invalid YAML: ${advice.message}`,
        hint: advice.hint,
      };
    return {
      severity: "error",
      code: duplicate ? "duplicate-key" : "yaml-syntax",
      file,
      position: position(lines, offset),
      message: duplicate
        ? `duplicate key${key === undefined ? "" : ` "${key}"`} in a mapping (${firstLine(error.message)})`
        : `invalid YAML: ${firstLine(error.message)}`,
      hint: duplicate ? "keep one of them: the file is not loaded while both are there" : yamlHint(error),
    };
  }
  return { severity: "error", code: "yaml-syntax", file, message: `invalid YAML: ${String(fallback)}` };
}

/** The two indentation errors people make by hand, told apart and said in words (yaml-indent-hint.ts). */
function indentAdvice(error: YAMLError, text: string, offset: number, lineBase: number): IndentAdvice | undefined {
  if (
    (error.code === "BLOCK_AS_IMPLICIT_KEY" && /Nested mappings/.test(error.message)) ||
    error.code === "MULTILINE_IMPLICIT_KEY"
  )
    return compactMappingAdvice(text, offset, lineBase);
  // A key out of line with its mapping; under a list item it reads as an item without its "-".
  if (
    (error.code === "BAD_INDENT" && /same column/.test(error.message)) ||
    (error.code === "MISSING_CHAR" && /Sequence item without/.test(error.message))
  )
    return badIndentAdvice(text, offset, lineBase);
  return undefined;
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}

/** The first problem in the text: a syntax error, or a repeated key, whichever is written first. */
function firstError(precise: PreciseDocument): YAMLError | undefined {
  const error = precise.doc.errors[0];
  const duplicate = firstDuplicateKey(precise.doc);
  if (duplicate === undefined || (error && error.pos[0] <= duplicate)) return error;
  const { YAMLParseError } = yaml();
  return new YAMLParseError([duplicate, duplicate + 1], "DUPLICATE_KEY", "Map keys must be unique");
}

/**
 * Values a document's aliases may add when expanded (each alias stands for a copy of the node
 * it names). A "billion laughs" file of a few hundred bytes expands to 10^9 values.
 */
export const MAX_ALIAS_EXPANSION = 100_000;

/** The nodes inside a node of the `yaml` package's tree, in document order. */
function childrenOf(node: unknown): unknown[] {
  const { isCollection, isPair } = yaml();
  if (isCollection(node)) return node.items;
  if (isPair(node)) return [node.key, node.value];
  return [];
}

/**
 * How many values the document's aliases add when expanded, in one pass (each anchored node is
 * sized once), or Infinity when an alias names a node that contains it; with where the first
 * alias is written. The `yaml` package's own guard (`maxAliasCount`) walks the whole document
 * again for each alias it counts: a file with a bomb beside a few thousand nested keys took
 * half a minute to refuse.
 */
function aliasGrowth(doc: Document.Parsed): { added: number; at: number } | undefined {
  const { isAlias, isPair, isScalar, isCollection } = yaml();
  // An alias names the last node anchored with its name before it, in document order.
  const anchors = new Map<string, unknown>();
  const targets = new Map<unknown, unknown>();
  let first: number | undefined;
  let plain = 0;
  const walk: unknown[] = [doc.contents];
  while (walk.length > 0) {
    const node = walk.pop();
    if (node === null || node === undefined) continue;
    if (!isPair(node)) plain++;
    if (isAlias(node)) {
      targets.set(node, anchors.get(node.source));
      first ??= node.range?.[0];
      continue;
    }
    if ((isScalar(node) || isCollection(node)) && node.anchor) anchors.set(node.anchor, node);
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) walk.push(children[i]);
  }
  if (targets.size === 0) return undefined;
  const sizes = new Map<unknown, number>();
  const open = new Set<unknown>();
  const stack: { node: unknown; entered: boolean }[] = [{ node: doc.contents, entered: false }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const node = frame.node;
    const next = (isAlias(node) ? [targets.get(node)] : childrenOf(node)).filter((n) => n !== null && n !== undefined);
    if (sizes.has(node)) {
      stack.pop();
    } else if (!frame.entered) {
      frame.entered = true;
      open.add(node);
      for (const child of next) {
        // Entered and not finished: an ancestor. The alias would expand forever.
        if (open.has(child)) return { added: Infinity, at: first ?? 0 };
        if (!sizes.has(child)) stack.push({ node: child, entered: false });
      }
    } else {
      open.delete(node);
      let total = isAlias(node) || isPair(node) ? 0 : 1;
      for (const child of next) total += sizes.get(child)!;
      sizes.set(node, total);
      stack.pop();
    }
  }
  return { added: (sizes.get(doc.contents) ?? 0) - plain, at: first ?? 0 };
}

function fromPrecise(source: SourceText, lineBase: number): ParseResult {
  const precise = parsePrecisely(source.text);
  const error = firstError(precise);
  if (error)
    return { ok: false, diagnostic: syntaxDiagnostic(source.file, precise.lines, error, "", source.text, lineBase) };
  const growth = aliasGrowth(precise.doc);
  if (growth && growth.added > MAX_ALIAS_EXPANSION) {
    const how =
      growth.added === Infinity
        ? "an alias names a node that contains it, so it never ends"
        : `its aliases expand it by ${growth.added} values, over the limit of ${MAX_ALIAS_EXPANSION}`;
    return {
      ok: false,
      diagnostic: {
        severity: "error",
        code: "yaml-syntax",
        file: source.file,
        position: position(precise.lines, growth.at),
        message: `invalid YAML: ${how} (a guard against alias bombs, a resource exhaustion attack)`,
        hint: "write the repeated parts out, or use fewer aliases",
      },
    };
  }
  let data: unknown;
  try {
    // Aliases were sized above: the package's own count (which re-walks the document per alias) is off.
    data = precise.doc.toJS({ maxAliasCount: -1 });
  } catch (failure) {
    // An unresolved alias only surfaces when the document is turned into data.
    const reason = failure instanceof Error ? failure.message : String(failure);
    return {
      ok: false,
      diagnostic: { severity: "error", code: "yaml-syntax", file: source.file, message: `invalid YAML: ${reason}` },
    };
  }
  return { ok: true, doc: { data, ...lazyLocators(source.text, precise) } };
}

/**
 * Parses a YAML file (or JSON, which is YAML's subset): skill files and config files alike.
 * Fast path: the fast reader (fast-yaml.ts), which answers only when it is sure; anything it
 * cannot vouch for, and every error, goes through the `yaml` package for exact positions and
 * strict key rules.
 * `lineBase`: lines above the text in its file (a SKILL.md frontmatter's), for the line numbers
 * an error's words name; the diagnostic's position stays within the text.
 */
export function parseYamlDocument(source: SourceText, options: { lineBase?: number } = {}): ParseResult {
  if (source.file.endsWith(".json")) return parseJson(source);
  const fast = fastParseYaml(source.text);
  if (fast) return { ok: true, doc: { data: fast.data, ...lazyLocators(source.text) } };
  return fromPrecise(source, options.lineBase ?? 0);
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
      ...(offset >= 0
        ? { position: position(precise.lines, offset) }
        : precise.doc.errors[0] && { position: position(precise.lines, precise.doc.errors[0].pos[0]) }),
      message: `invalid JSON: ${reason}`,
      hint: "JSON has no comments, trailing commas or single quotes; a .yaml file may be easier to write by hand",
    };
    return { ok: false, diagnostic };
  }
  // JSON.parse keeps the last of duplicate keys; the YAML reading of the same text reports them.
  const precise = parsePrecisely(source.text);
  const duplicate = firstDuplicateKey(precise.doc);
  if (duplicate !== undefined) {
    const { YAMLParseError } = yaml();
    return {
      ok: false,
      diagnostic: syntaxDiagnostic(
        source.file,
        precise.lines,
        new YAMLParseError([duplicate, duplicate + 1], "DUPLICATE_KEY", "Map keys must be unique"),
        "",
        source.text,
      ),
    };
  }
  return { ok: true, doc: { data, ...lazyLocators(source.text, precise) } };
}
