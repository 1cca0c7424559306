/** The headings of a skill's markdown body, for search, parsed by hand: a regex cost a quarter of parsing a SKILL.md. */
import { lineCount, newlinesIn } from "./line-count.ts";

/** Enough headings to say what a long body covers; search weighs them, nothing else reads them. */
const MAX_HEADINGS = 32;
const MAX_HEADING_CHARS = 120;

const TAB = 9;
const CR = 13;
const SPACE = 32;
const HASH = 35;
const BACKTICK = 96;
const TILDE = 126;
const OPEN_BRACE = 123;

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB;
}

/**
 * The text of the ATX heading on the line [i, end) of `body` whose first character after its
 * indent is the `#` at `i`, without Handlebars tags and with whitespace runs made single spaces;
 * undefined when the line is not a heading. Worked out by hand rather than with
 * `/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/` (on the line without a final `\r`), which
 * it matches exactly: that regex's lazy group cost a quarter of parsing a SKILL.md. Pinned
 * against it in test/unit/headings.test.ts.
 */
function headingText(body: string, i: number, end: number): string | undefined {
  if (body.charCodeAt(end - 1) === CR) end--;
  let j = i;
  while (j < end && body.charCodeAt(j) === HASH) j++;
  if (j - i > 6 || j >= end || !isBlank(body.charCodeAt(j))) return undefined;
  while (j < end && isBlank(body.charCodeAt(j))) j++;
  let e = end;
  while (e > j && isBlank(body.charCodeAt(e - 1))) e--;
  if (e > j && body.charCodeAt(e - 1) === HASH) {
    // A closing sequence: `#`s after a blank, at the end; a `#` run the text starts with is text.
    let h = e - 1;
    while (h > j && body.charCodeAt(h - 1) === HASH) h--;
    if (h > j && isBlank(body.charCodeAt(h - 1))) {
      e = h - 1;
      while (isBlank(body.charCodeAt(e - 1))) e--;
    }
  }
  // The text [j, e) starts and ends with no blank; what follows it is blanks and `#`s. Plain
  // (printable ASCII, single spaces, no `{{`), it needs no cleaning.
  let plain = true;
  for (let k = j; k < e; k++) {
    const c = body.charCodeAt(k);
    if (c > SPACE && c < 127) {
      if (c === OPEN_BRACE && body.charCodeAt(k + 1) === OPEN_BRACE) plain = false;
    } else if (c === CR || c === 0x2028 || c === 0x2029) {
      return undefined; // `.` stops at these, so the regex never reaches the line's end past one.
    } else if (c !== SPACE || body.charCodeAt(k + 1) === SPACE) plain = false;
  }
  const text = body.slice(j, e);
  return plain ? text : cleaned(text);
}

/** A heading's text without Handlebars tags, its whitespace runs made single spaces. */
function cleaned(text: string): string {
  return text
    .replace(/\{\{[^}]*\}\}/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** A body's headings, and how many `\n` it holds when they were asked for. */
interface Scan {
  headings: string[] | undefined;
  newlines: number;
}

/**
 * Walks the body's lines once for both: its headings, and (with `countLines`) its newlines,
 * which a SKILL.md's length check needs and which cost as much again to count on their own.
 */
function scan(body: string, countLines: boolean): Scan {
  if (!body.includes("#")) return { headings: undefined, newlines: countLines ? newlinesIn(body) : 0 };
  const headings: string[] = [];
  let newlines = 0;
  // The open fence's character (0: none) and length: it closes on a run of that character at least as long.
  let fenceChar = 0;
  let fenceLength = 0;
  // Line by line without splitting: only a line whose first character (after up to three
  // spaces) is `#`, a backtick or `~` can be a heading or a fence, and only those are looked at.
  let start = 0;
  while (start <= body.length) {
    let end = body.indexOf("\n", start);
    if (end === -1) end = body.length;
    else newlines++;
    let i = start;
    while (i < end && i - start < 3 && body.charCodeAt(i) === SPACE) i++;
    const first = body.charCodeAt(i);
    start = end + 1;
    if (first === BACKTICK || first === TILDE) {
      let j = i + 1;
      while (body.charCodeAt(j) === first) j++;
      const run = j - i;
      if (run < 3) continue;
      if (fenceChar === 0) {
        fenceChar = first;
        fenceLength = run;
      } else if (first === fenceChar && run >= fenceLength) fenceChar = 0;
      continue;
    }
    if (first !== HASH || fenceChar !== 0) continue;
    const text = headingText(body, i, end);
    if (text === undefined || text === "") continue;
    headings.push(text.slice(0, MAX_HEADING_CHARS));
    if (headings.length === MAX_HEADINGS) break;
  }
  if (countLines && start < body.length) newlines += newlinesIn(body, start);
  return { headings: headings.length > 0 ? headings : undefined, newlines };
}

/**
 * The Markdown headings (`# …` lines, outside fenced code) of a skill's body, in order, without
 * Handlebars tags; undefined when there are none. Computed once when the skill is parsed, so the
 * search index never reads a body.
 */
export function bodyHeadings(body: string | undefined): string[] | undefined {
  return body === undefined ? undefined : scan(body, false).headings;
}

/** A body's headings (as bodyHeadings) and its length in lines (as lineCount), in one walk. */
export function bodyOutline(body: string): { headings: string[] | undefined; lines: number } {
  const { headings, newlines } = scan(body, true);
  return { headings, lines: lineCount(body, newlines) };
}

/** `{ headings }` for a skill object, or nothing. */
export function withHeadings(body: string | undefined): { headings?: string[] } {
  return headingsField(bodyHeadings(body));
}

/** `{ headings }` for a skill object when there are any. */
export function headingsField(headings: string[] | undefined): { headings?: string[] } {
  return headings ? { headings } : {};
}
