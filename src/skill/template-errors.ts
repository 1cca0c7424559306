/**
 * Handlebars says what its grammar expected (`Expecting 'CLOSE_RAW_BLOCK', 'CLOSE', …, got
 * 'INVALID'`), which is no help to a person writing a prompt. When it refuses a template, a scan
 * of the tags finds the mistake people make (a tag not closed with `}}`, a block never closed,
 * closed in the wrong order or not opened) and says the fix, at the tag. Only what the scan does
 * not recognise keeps the grammar's view, in words.
 */
import type { SourcePosition } from "../diagnostics.ts";

export interface TemplateError {
  message: string;
  hint: string;
  position: SourcePosition;
}

/** Maps a position in the template to where a person finds it (the skill file), for the words. */
export type Place = (position: SourcePosition) => SourcePosition | undefined;

function positionOf(template: string, index: number): SourcePosition {
  const before = template.slice(0, index);
  const line = before.split("\n").length;
  return { line, column: index - (before.lastIndexOf("\n") + 1) + 1 };
}

/** A tag as written, up to the end of its line and 40 characters, for quoting in a message. */
function excerpt(template: string, start: number, end: number): string {
  const text = template.slice(start, end).split("\n")[0]!;
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

interface OpenBlock {
  name: string;
  index: number;
  sawElse: boolean;
}

/** The tags read so far: the blocks still open, and how a message names a place. */
interface Scan {
  template: string;
  open: OpenBlock[];
  at: (index: number) => SourcePosition;
  where: (index: number) => string;
}

/**
 * The first mistake in the template's tags, or undefined when the scan sees none (or meets a
 * construct it does not follow, such as raw blocks).
 */
export function explainTemplateError(template: string, place: Place = () => undefined): TemplateError | undefined {
  const at = (index: number): SourcePosition => positionOf(template, index);
  const where = (index: number): string => {
    const inTemplate = at(index);
    const inFile = place(inTemplate);
    return inFile
      ? `line ${inFile.line}, column ${inFile.column}`
      : `line ${inTemplate.line}, column ${inTemplate.column} of the template`;
  };
  const scan: Scan = { template, open: [], at, where };
  let i = 0;
  for (let start = template.indexOf("{{"); start >= 0; start = template.indexOf("{{", i)) {
    i = start + 2;
    // `\{{` is literal text, `{{{{` opens a raw block: neither is followed here.
    if (template[start - 1] === "\\" && template[start - 2] !== "\\") continue;
    if (template.startsWith("{{{{", start)) return undefined;
    const next = template.startsWith("{{!", start) ? skipComment(scan, start) : readTag(scan, start);
    if (typeof next !== "number") return next;
    i = next;
  }
  const last = scan.open.pop();
  if (last) {
    return {
      message: `{{#${last.name}}} is never closed`,
      hint: `add {{/${last.name}}} where the block ends`,
      position: at(last.index),
    };
  }
  return undefined;
}

/** Where the scan goes on after a comment, or the comment that is never closed. */
function skipComment({ template, at }: Scan, start: number): TemplateError | number {
  const closer = template.startsWith("{{!--", start) ? "--}}" : "}}";
  const end = template.indexOf(closer, start + 3);
  if (end < 0) {
    return {
      message: `the comment ${excerpt(template, start, start + 20)} is never closed`,
      hint: `close it with ${closer}`,
      position: at(start),
    };
  }
  return end + closer.length;
}

/** Where the scan goes on after a tag, or what is wrong with its braces or its block. */
function readTag(scan: Scan, start: number): TemplateError | number {
  const { template, at } = scan;
  const triple = template[start + 2] === "{";
  const end = template.indexOf("}}", start + 2);
  const next = template.indexOf("{{", start + 2);
  const tagEnd = end < 0 || (next >= 0 && next < end) ? (next >= 0 ? next : template.length) : end;
  const inner = template.slice(start + (triple ? 3 : 2), tagEnd);
  const single = inner.indexOf("}");
  if (single >= 0) {
    const tag = excerpt(template, start, start + (triple ? 3 : 2) + single + 1);
    const closer = triple ? "}}}" : "}}";
    return {
      message: `the tag ${tag} ends with one } instead of ${closer}`,
      hint: `close it with ${closer}: ${tag.slice(0, -1).trimEnd()}${closer}`,
      position: at(start),
    };
  }
  if (tagEnd !== end) {
    return {
      message: `the tag ${excerpt(template, start, tagEnd).trimEnd()} is never closed`,
      hint: `close it with ${triple ? "}}}" : "}}"}; a literal "{{" is written \\{{`,
      position: at(start),
    };
  }
  if (triple) {
    if (template[end + 2] !== "}")
      return {
        message: `the tag ${excerpt(template, start, end + 2)} opens with {{{ but closes with }}`,
        hint: "close it with }}} (or open it with {{)",
        position: at(start),
      };
    return end + 3;
  }
  if (template[end + 2] === "}") {
    return {
      message: `the tag ${excerpt(template, start, end + 3)} closes with }}} but opens with {{`,
      hint: "close it with }} (or open it with {{{ for text that is not escaped)",
      position: at(start),
    };
  }
  const body = inner.replace(/^~?\s*/, "").replace(/\s*~?$/, "");
  return readBlockTag(scan, body, start) ?? end + 2;
}

/** Follows the blocks a tag opens and closes; a close, else or `else if` out of place is the mistake. */
function readBlockTag(scan: Scan, body: string, start: number): TemplateError | undefined {
  const { open, at, where } = scan;
  const opening = /^[#^]\s*([^\s~}()]+)/.exec(body);
  if (opening) {
    open.push({ name: opening[1]!, index: start, sawElse: false });
    return undefined;
  }
  const closing = /^\/\s*([^\s~}]+)\s*(.*)$/.exec(body);
  if (closing) return closeBlock(scan, closing[1]!, closing[2]!, start);
  if (/^(?:else|\^)$/.test(body)) return readElse(scan, body, start);
  const top = open[open.length - 1];
  if (/^else\s/.test(body) && top?.sawElse) {
    return {
      message: `{{${excerpt(body, 0, body.length)}}} comes after the plain {{else}} of the {{#${top.name}}} opened at ${where(top.index)}`,
      hint: "put the plain {{else}} last",
      position: at(start),
    };
  }
  return undefined;
}

function closeBlock({ open, at, where }: Scan, name: string, after: string, start: number): TemplateError | undefined {
  const top = open.pop();
  if (!top) {
    return {
      message: `{{/${name}}} closes a block that is not open`,
      hint: `remove it, or open the block before it with {{#${name} …}}`,
      position: at(start),
    };
  }
  if (top.name !== name) {
    return {
      message: `{{/${name}}} does not match {{#${top.name}}}, opened at ${where(top.index)}`,
      hint: `write {{/${top.name}}} here: blocks close in the reverse order they were opened`,
      position: at(start),
    };
  }
  if (after !== "")
    return {
      message: `{{/${name}}} takes nothing after the name`,
      hint: `write {{/${name}}}`,
      position: at(start),
    };
  return undefined;
}

function readElse({ open, at, where }: Scan, body: string, start: number): TemplateError | undefined {
  const top = open[open.length - 1];
  if (!top)
    return {
      message: `{{${body}}} is outside any block`,
      hint: "use it between {{#if x}} and {{/if}} (or #unless, #each, #with), or remove it",
      position: at(start),
    };
  if (top.sawElse) {
    return {
      message: `a second {{else}} in the {{#${top.name}}} opened at ${where(top.index)}`,
      hint: `a block takes one {{else}}; remove this one, or close the block first with {{/${top.name}}}`,
      position: at(start),
    };
  }
  top.sawElse = true;
  return undefined;
}

/** Handlebars' token names, as a person writes them. */
const TOKENS: Record<string, string> = {
  CLOSE: "}}",
  CLOSE_UNESCAPED: "}}}",
  CLOSE_RAW_BLOCK: "}}}}",
  ID: "a name",
  STRING: "a quoted text",
  NUMBER: "a number",
  BOOLEAN: "true or false",
  UNDEFINED: "undefined",
  NULL: "null",
  DATA: "an @name",
  SEP: ". or /",
  EQUALS: "=",
  OPEN_SEXPR: "(",
  CLOSE_SEXPR: ")",
  OPEN_BLOCK_PARAMS: "as |…|",
  CLOSE_BLOCK_PARAMS: "|",
  EOF: "the end of the template",
  INVALID: "a character that cannot stand there",
  INVERSE: "{{else}}",
  OPEN_INVERSE_CHAIN: "{{else …}}",
  OPEN_ENDBLOCK: "{{/…}}",
  OPEN_BLOCK: "{{#…}}",
  OPEN_INVERSE: "{{^…}}",
  OPEN: "{{",
  OPEN_UNESCAPED: "{{{",
  OPEN_PARTIAL: "{{>",
  OPEN_PARTIAL_BLOCK: "{{#>",
  OPEN_RAW_BLOCK: "{{{{",
  CONTENT: "text",
  COMMENT: "a comment",
};

const word = (token: string): string => TOKENS[token] ?? token.toLowerCase().replace(/_/g, " ");

/**
 * The grammar's complaint in words: what it found, and the first few things it would take there
 * (`Expecting 'ID', 'STRING', …, got 'CLOSE'` → `found }} where a name, a quoted text or … belongs`).
 */
export function grammarInWords(expected: string): string {
  const names = [...expected.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!);
  const got = /got '([A-Z_]+)'$/.exec(expected)?.[1];
  let expectedNames = got ? names.slice(0, -1) : names;
  // Where }} would do, the rarer closers are noise; the likely fixes come first.
  if (expectedNames.includes("CLOSE"))
    expectedNames = [
      "CLOSE",
      ...expectedNames.filter((n) => n !== "CLOSE" && n !== "CLOSE_UNESCAPED" && n !== "CLOSE_RAW_BLOCK"),
    ];
  const wanted = expectedNames.map(word);
  const listed =
    wanted.length > 3
      ? `${wanted.slice(0, 3).join(", ")} or another value`
      : wanted.length > 1
        ? `${wanted.slice(0, -1).join(", ")} or ${wanted[wanted.length - 1]}`
        : (wanted[0] ?? "something else");
  return got ? `found ${word(got)} where ${listed} belongs` : `expected ${listed}`;
}
