/**
 * One file of a skill, looked at by every rule (rules.ts): its kind decides how. Every file is
 * text unless its first bytes name a binary format: an executable (ELF, Mach-O, PE) is a finding;
 * an image, font, archive, PDF, audio or video file is left alone. A NUL byte does not make a file
 * binary (bash, node and perl run a script holding one, while git, grep and review tools show it
 * as binary): the text is decoded and scanned with its NULs dropped, as bash drops them, and a NUL
 * in SKILL.md or a script is a finding of its own. Text is decoded by its byte-order mark (UTF-8,
 * UTF-16 LE/BE, as Windows writes a `.ps1`; UTF-32), else as UTF-8, then normalised (normalise.ts:
 * NFKC, invisible characters removed, entities decoded, look-alikes folded, long base64 and hex
 * literals decoded and scanned on their own); every rule's pattern runs over that, each match a
 * finding with its line and column in the text as written (1-based; columns in UTF-16 units,
 * SARIF's default).
 *
 * A skill's own words are instructions (issue 48 item 4): a nearby word ("for example",
 * "patterns"), a code span or quotation marks never lowers a finding. Words aimed at the agent
 * (`prose` rules) and commands in prose are lowered to `low` only by a prohibition that governs the
 * very match, or as an example a security review marks as one (context.ts). A script's commands
 * are never lowered: in `.sh`, `.py`, `.js` and the like, code is code, as is a fenced code block
 * in Markdown (unless it stands under a security review's marked heading).
 */
import { visibleLine } from "../visible-text.ts";
import { forbidden, namedTag, ReviewExamples } from "./context.ts";
import { invisibleSpelledOut, NORMALISE_LIMITS, normalise, type Normalised } from "./normalise.ts";
import { type Found, NeedleScanner, type PartMatch, partMatches, patternParts } from "./pattern-parts.ts";
import { RULES, RULES_BY_ID, reaches, type Rule, type Severity } from "./rules.ts";

export interface Finding {
  rule: string;
  severity: Severity;
  /** Relative to the skill's folder (or the layer's, for a skill file), `/`-separated. */
  file: string;
  line: number;
  column: number;
  message: string;
}

/** Without the `u` flag: a plain scan for any code unit over 0x7F. */
const NON_ASCII = /[^\x00-\x7F]/;

/** `ELF`, Mach-O (32/64-bit, either order, and fat), or a PE (`MZ` with a `PE\0\0` header where it says). */
export function executableFormat(bytes: Uint8Array): string | undefined {
  if (bytes.length < 4) return undefined;
  const word = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
  if (word === 0x7f454c46) return "an ELF executable";
  if (word === 0xfeedface || word === 0xfeedfacf || word === 0xcefaedfe || word === 0xcffaedfe)
    return "a Mach-O executable";
  // 0xCAFEBABE is also a Java class: a fat Mach-O has a handful of architectures where a class has its version.
  if (word === 0xcafebabe && bytes.length >= 8) {
    const count = ((bytes[4]! << 24) | (bytes[5]! << 16) | (bytes[6]! << 8) | bytes[7]!) >>> 0;
    if (count > 0 && count < 32) return "a Mach-O universal executable";
  }
  if (bytes[0] === 0x4d && bytes[1] === 0x5a && bytes.length >= 64) {
    const at = bytes[60]! | (bytes[61]! << 8) | (bytes[62]! << 16) | (bytes[63]! << 24);
    if (
      at > 0 &&
      at + 4 <= bytes.length &&
      bytes[at] === 0x50 &&
      bytes[at + 1] === 0x45 &&
      bytes[at + 2] === 0 &&
      bytes[at + 3] === 0
    )
      return "a Windows (PE) executable";
  }
  return undefined;
}

/** Whether `bytes` holds `signature` at `at` (a number is a byte, a string its ASCII bytes). */
function holds(bytes: Uint8Array, at: number, signature: string | readonly number[]): boolean {
  const want = typeof signature === "string" ? [...signature].map((c) => c.charCodeAt(0)) : signature;
  if (at + want.length > bytes.length) return false;
  for (let i = 0; i < want.length; i++) if (bytes[at + i] !== want[i]) return false;
  return true;
}

/**
 * Binary formats a skill ships as data, by their signatures ("magic numbers"): images, fonts,
 * archives, documents, audio and video. Anything else is text, whatever bytes it holds.
 */
const BINARY_SIGNATURES: readonly (readonly [string, number, string | readonly number[]])[] = [
  ["a PNG image", 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ["a JPEG image", 0, [0xff, 0xd8, 0xff]],
  ["a GIF image", 0, "GIF87a"],
  ["a GIF image", 0, "GIF89a"],
  ["a BMP image", 0, "BM"],
  ["an icon", 0, [0, 0, 1, 0]],
  ["a cursor", 0, [0, 0, 2, 0]],
  ["an Apple icon", 0, "icns"],
  ["a TIFF image", 0, [0x49, 0x49, 0x2a, 0]],
  ["a TIFF image", 0, [0x4d, 0x4d, 0, 0x2a]],
  ["a Photoshop image", 0, "8BPS"],
  ["a JPEG 2000 image", 0, [0, 0, 0, 0x0c, 0x6a, 0x50, 0x20, 0x20]],
  ["a PDF document", 0, "%PDF-"],
  ["a zip archive", 0, [0x50, 0x4b, 0x03, 0x04]],
  ["a zip archive", 0, [0x50, 0x4b, 0x05, 0x06]],
  ["a zip archive", 0, [0x50, 0x4b, 0x07, 0x08]],
  ["a gzip archive", 0, [0x1f, 0x8b]],
  ["a bzip2 archive", 0, "BZh"],
  ["an xz archive", 0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ["a 7-Zip archive", 0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ["a Zstandard archive", 0, [0x28, 0xb5, 0x2f, 0xfd]],
  ["a RAR archive", 0, "Rar!\x1a\x07"],
  ["a tar archive", 257, "ustar"],
  ["an OLE document (Office 97)", 0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]],
  ["a SQLite database", 0, "SQLite format 3\0"],
  ["a WebAssembly module", 0, [0x00, 0x61, 0x73, 0x6d]],
  ["a TrueType font", 0, [0x00, 0x01, 0x00, 0x00]],
  ["a TrueType font", 0, "true"],
  ["an OpenType font", 0, "OTTO"],
  ["a font collection", 0, "ttcf"],
  ["a WOFF font", 0, "wOFF"],
  ["a WOFF2 font", 0, "wOF2"],
  ["an MP3 file", 0, "ID3"],
  ["an MP3 file", 0, [0xff, 0xfb]],
  ["an MP3 file", 0, [0xff, 0xf3]],
  ["an MP3 file", 0, [0xff, 0xf2]],
  ["an Ogg file", 0, "OggS"],
  ["a FLAC file", 0, "fLaC"],
  ["a MIDI file", 0, "MThd"],
  ["an MP4/QuickTime file", 4, "ftyp"],
  ["a Matroska/WebM file", 0, [0x1a, 0x45, 0xdf, 0xa3]],
  ["an ASF/WMV file", 0, [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11]],
  ["a Java class", 0, [0xca, 0xfe, 0xba, 0xbe]],
];

const SNIFF_BYTES = 8192;

/**
 * Whether the first 8 KB read as text: valid UTF-8 without a NUL. A real image, font or archive
 * fails this within its header; a file that only *begins* like one ("%PDF-" then a shell script,
 * "BM" then prose) passes and is read as the text it is.
 */
function readsAsText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return false;
  try {
    // `stream`: a character cut at the 8 KB boundary is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The binary format of a data file (RIFF: WebP, WAV, AVI), or undefined: the file is text. Both
 * the signature and the bytes after it must say binary; SKILL.md and scripts are always text,
 * whatever they begin with (bash runs "%PDF-" followed by commands).
 */
export function binaryFormat(path: string, bytes: Uint8Array): string | undefined {
  if (runnable(path) || readsAsText(bytes)) return undefined;
  for (const [name, at, signature] of BINARY_SIGNATURES) if (holds(bytes, at, signature)) return name;
  if (holds(bytes, 0, "RIFF")) {
    if (holds(bytes, 8, "WEBP")) return "a WebP image";
    if (holds(bytes, 8, "WAVE")) return "a WAV file";
    if (holds(bytes, 8, "AVI ")) return "an AVI file";
  }
  return undefined;
}

/** UTF-32 by hand (TextDecoder has no UTF-32): a unit that is no code point is U+FFFD. */
function utf32(bytes: Uint8Array, littleEndian: boolean): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  let chunk: number[] = [];
  for (let i = 4; i + 4 <= bytes.length; i += 4) {
    const unit = view.getUint32(i, littleEndian);
    chunk.push(unit <= 0x10ffff && (unit < 0xd800 || unit > 0xdfff) ? unit : 0xfffd);
    if (chunk.length === 4096) {
      parts.push(String.fromCodePoint(...chunk));
      chunk = [];
    }
  }
  parts.push(String.fromCodePoint(...chunk));
  return parts.join("");
}

/**
 * A text file's characters, by its byte-order mark: UTF-32 (LE/BE), UTF-16 (LE/BE: a `.ps1`
 * saved as "Unicode" by Windows), UTF-8 (the mark dropped); no mark is UTF-8. Invalid sequences
 * become U+FFFD, never an error.
 */
export function decodeText(bytes: Uint8Array): string {
  if (holds(bytes, 0, [0xff, 0xfe, 0, 0])) return utf32(bytes, true);
  if (holds(bytes, 0, [0, 0, 0xfe, 0xff])) return utf32(bytes, false);
  if (holds(bytes, 0, [0xff, 0xfe])) return new TextDecoder("utf-16le").decode(bytes);
  if (holds(bytes, 0, [0xfe, 0xff])) return new TextDecoder("utf-16be").decode(bytes);
  return new TextDecoder().decode(bytes);
}

/** SKILL.md and scripts by their extension: what an agent follows or runs. */
function runnable(path: string): boolean {
  return /(?:^|\/)skill\.md$/i.test(path) || CODE_FILE.test(path);
}

/** Files whose text is the skill's own code, not prose: their commands are never lowered by context. */
const CODE_FILE =
  /\.(?:sh|bash|zsh|fish|ps1|psm1|bat|cmd|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|rb|pl|php|go|rs|lua|r|swift|kt|java|cs|c|cc|cpp|h|hpp|applescript|scpt|command|tool)$/i;
const PROSE_FILE = /\.(?:md|markdown|mdx|txt|rst|ya?ml|json|html?)$/i;

/**
 * Each rule's pattern in parts (pattern-parts.ts), split once when the audit loads. A rule that
 * reads the text as written (`raw`) keeps its pattern whole: its characters are the ones the
 * needle scan does not read.
 */
const PARTS = new Map(RULES.flatMap((r) => (r.pattern && !r.raw ? [[r.id, patternParts(r.pattern)] as const] : [])));

/** Every rule's needles and every part's needles and anchors, found in one pass over a text. */
const NEEDLES = new NeedleScanner(
  RULES.flatMap((r) => (r.needles ?? []).flat()),
  [...PARTS.values()].flatMap((parts) => parts ?? []),
);

/** A rule's matches in `subject`: its pattern's parts whose needles the text holds, or the whole pattern. */
function* matchesOf(rule: Rule & { pattern: RegExp }, subject: string, found: () => Found): Generator<PartMatch> {
  const parts = PARTS.get(rule.id);
  if (parts) return yield* partMatches(parts, subject, found());
  rule.pattern.lastIndex = 0;
  for (const m of subject.matchAll(rule.pattern)) yield { index: m.index, text: m[0] };
}

/**
 * Start offsets of each line, for positions; made once per file with a finding. What the context
 * judges ask of the file (its fences, a security review's marked examples) is worked out once and
 * kept, so many findings cost the file's length once, not per finding.
 */
class Lines {
  private readonly starts: number[] = [0];
  private fences: boolean[] | undefined;
  private examples: ReviewExamples | undefined;
  constructor(readonly text: string) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
  }
  /** 0-based line index of an offset. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  startOf(line: number): number {
    return this.starts[line]!;
  }
  lineText(line: number): string {
    const end = line + 1 < this.starts.length ? this.starts[line + 1]! - 1 : this.text.length;
    return this.text.slice(this.starts[line]!, end);
  }
  /** Whether `line` is inside a fenced code block (``` or ~~~) of a Markdown file. */
  inFence(line: number): boolean {
    if (!this.fences) {
      this.fences = [];
      let open = false;
      for (let i = 0; i < this.starts.length; i++) {
        this.fences.push(open);
        if (/^\s{0,64}(?:```|~~~)/.test(this.text.slice(this.starts[i]!, this.starts[i]! + 80))) open = !open;
      }
    }
    return this.fences[line]!;
  }
  /** A security review's marked examples (context.ts), for a Markdown file. */
  reviewExamples(): ReviewExamples {
    this.examples ??= new ReviewExamples(this.text.split("\n"));
    return this.examples;
  }
}

/**
 * Why a match in prose is lowered to `low`, or undefined: it keeps its severity. `markdown`: the
 * file may hold a security review's marked examples; `fenced`: the match is code in a fenced block,
 * which no prohibition lowers.
 */
function lowered(context: Lines, line: number, start: number, end: number, markdown: boolean): string | undefined {
  const text = context.lineText(line);
  const from = start - context.startOf(line);
  const to = Math.min(end - context.startOf(line), text.length);
  if (markdown && context.reviewExamples().holds(line, text, from, to))
    return " (an example under a security review's heading of things to flag: reported, not blocked)";
  if (namedTag(text, from, to)) return " (a tag named in a code span, wrapping nothing: reported, not blocked)";
  if (!(markdown && context.inFence(line)) && forbidden(text, from, to))
    return " (forbidden in its own sentence: reported, not blocked)";
  return undefined;
}

/** The matched text as a person can read it: invisible characters spelled out, long matches cut, secrets masked. */
function shown(rule: Rule, matched: string): string {
  if (rule.id === "embedded-secret") return `${matched.slice(0, 10)}…`;
  const visible = invisibleSpelledOut(matched);
  const line = visible.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}

function tagText(matched: string): string {
  // Tag characters mirror ASCII (U+E0041 is a hidden "A"): what they spell is the point.
  const spelled = [...matched].map((c) => String.fromCharCode(c.codePointAt(0)! - 0xe0000)).join("");
  return `${matched.length / 2} tag characters spelling "${spelled.replace(/[^\x20-\x7e]/g, "?").slice(0, 60)}"`;
}

/**
 * A file may hold millions of matches (4 MiB of zero-width spaces): past this many findings of one
 * rule, only a finding of a higher severity than those kept is listed, and the rest are counted in
 * the last one's message. The verdict is the same; the work and the report stay bounded.
 */
const MAX_FINDINGS_PER_RULE = 100;

const byPosition = (a: Finding, b: Finding) => a.line - b.line || a.column - b.column || (a.rule < b.rule ? -1 : 1);

/** Every finding in one file of a skill. */
export function scanFile(path: string, bytes: Uint8Array): Finding[] {
  // Executables are told by their first bytes, NUL bytes near the start or not.
  const format = executableFormat(bytes);
  if (format) {
    const rule = RULES_BY_ID.get("executable-binary")!;
    const message = `${path} is ${format}: ${rule.reason}`;
    return [{ rule: rule.id, severity: rule.severity, file: path, line: 1, column: 1, message }];
  }
  // A known data format (an image in assets/, a font, a PDF, an archive) is not text: no rule reads it.
  if (binaryFormat(path, bytes)) return [];
  const text = decodeText(bytes);
  const nul = text.indexOf("\0");
  if (nul < 0) return scanText(path, text);
  // Scanned as bash runs it, NULs dropped ("cu\0rl" is curl); lines are unchanged, so a finding's line is true.
  const findings = scanText(path, text.replaceAll("\0", ""));
  // Where a NUL has no business: what an agent follows or runs, or any file opening with `#!`.
  if (runnable(path) || text.startsWith("#!")) {
    const rule = RULES_BY_ID.get("nul-byte")!;
    const lines = new Lines(text);
    const line = lines.lineOf(nul);
    findings.push({
      rule: rule.id,
      severity: rule.severity,
      file: path,
      line: line + 1,
      column: nul - lines.startOf(line) + 1,
      message: `${path} holds a NUL byte: ${rule.reason}`,
    });
  }
  return findings.sort(byPosition);
}

/**
 * What normalising found (invisible runs, mixed-script words) and what the long literals it
 * decoded hold, scanned as text of their own (to NORMALISE_LIMITS.decodeDepth), each placed where
 * it stands in the text as written.
 */
function normalisedFindings(
  path: string,
  norm: Normalised,
  place: (offset: number) => { line: number; column: number },
  depth: number,
  findings: Finding[],
): void {
  for (const mark of norm.marks) {
    const rule = RULES_BY_ID.get(mark.rule)!;
    const what = mark.rule === "invisible-characters" ? mark.what : `"${visibleLine(mark.what)}"`;
    const message = `${what}: ${rule.reason}`;
    findings.push({
      rule: rule.id,
      severity: mark.severity ?? rule.severity,
      file: path,
      ...place(mark.start),
      message,
    });
  }
  if (depth < NORMALISE_LIMITS.decodeDepth)
    for (const literal of norm.decoded) {
      const where = place(literal.start);
      for (const f of scanText(path, literal.text, depth + 1))
        findings.push({ ...f, ...where, message: `decoded from a ${literal.kind} literal: ${f.message}` });
    }
}

export function scanText(path: string, text: string, depth = 0): Finding[] {
  const findings: Finding[] = [];
  // Rules read the text normalised (normalise.ts); positions are the original's.
  const norm = normalise(text, path);
  let original: Lines | undefined;
  let lines: Lines | undefined;
  const codeFile = CODE_FILE.test(path);
  const proseFile = !codeFile && (PROSE_FILE.test(path) || !/\.[A-Za-z0-9]+$/.test(path));
  const markdown = /\.(?:md|markdown|mdx)$/i.test(path);
  let scanned: Found | undefined;
  const found = () => (scanned ??= NEEDLES.scan(norm.text));
  const ascii = !NON_ASCII.test(text);
  const place = (offset: number) => {
    original ??= new Lines(text);
    const line = original.lineOf(offset);
    return { line: line + 1, column: offset - original.startOf(line) + 1 };
  };
  for (const rule of RULES) {
    if (!rule.pattern) continue;
    if (rule.nonAscii && (rule.raw ? ascii : !NON_ASCII.test(norm.text))) continue;
    if (!rule.raw && rule.needles && !rule.needles.every((group) => group.some((n) => found().holds(n)))) continue;
    const subject = rule.raw ? text : norm.text;
    let kept = 0;
    let more = 0;
    let top: Severity = "low";
    for (const match of matchesOf(rule as Rule & { pattern: RegExp }, subject, found)) {
      if (kept >= MAX_FINDINGS_PER_RULE && top === "high") {
        more++;
        continue;
      }
      const start = match.index;
      const end = start + match.text.length;
      let severity: Severity = rule.severity;
      if (rule.check) {
        const judged = rule.check({ text: subject, start, end, path });
        if (judged === undefined) continue;
        if (judged !== "keep") severity = judged;
      }
      // Past the cap, a match no higher than those kept is only counted: lowering could only lower
      // it further, and judging its context reads its whole line (4 MiB, on a hostile one) again.
      if (kept >= MAX_FINDINGS_PER_RULE && reaches(top, severity)) {
        more++;
        continue;
      }
      if (rule.raw) original ??= new Lines(text);
      else lines ??= new Lines(subject);
      const context = (rule.raw ? original : lines)!;
      const line = context.lineOf(start);
      const canBeLowered = rule.kind === "prose" || (rule.kind === "code" && proseFile);
      const note = canBeLowered && severity !== "low" ? lowered(context, line, start, end, markdown) : undefined;
      if (note) severity = "low";
      if (kept >= MAX_FINDINGS_PER_RULE && reaches(top, severity)) {
        more++;
        continue;
      }
      kept++;
      if (!reaches(top, severity)) top = severity;
      const from = rule.raw ? start : norm.origin(start);
      // A match on normalised text is quoted as written, and as read when the two differ.
      const written = rule.raw ? match.text : text.slice(from, norm.origin(end));
      const read = written === match.text ? "" : ` (read as "${shown(rule, match.text)}")`;
      const what = rule.id === "hidden-tag-characters" ? tagText(match.text) : `"${shown(rule, written)}"${read}`;
      findings.push({
        rule: rule.id,
        severity,
        file: path,
        ...place(from),
        message: `${what}: ${rule.reason}${note ?? ""}`,
      });
    }
    if (more > 0) {
      const last = findings.findLast((f) => f.rule === rule.id)!;
      last.message += ` (and ${more} more matches of this rule in this file, not listed)`;
    }
  }
  normalisedFindings(path, norm, place, depth, findings);
  return findings.sort(byPosition);
}
