/**
 * One file of a skill, looked at by every rule (rules.ts): its kind decides how. A binary file
 * (a NUL byte near its start) is not read as text: an executable (ELF, Mach-O, PE) is a finding,
 * anything else (an image in `assets/`, a font, a PDF) is left alone. A text file is decoded as
 * UTF-8, normalised (normalise.ts: NFKC, invisible characters removed, entities decoded,
 * look-alikes folded, long base64 and hex literals decoded and scanned on their own), and every
 * rule's pattern runs over that; each match is a finding with its line and column in the text as
 * written (1-based; columns in UTF-16 units, SARIF's default).
 *
 * Words aimed at the agent (`prose` rules) and commands quoted in prose are judged in context: a
 * match on a line about finding attacks ("look for", "e.g.", "injection", within the three lines
 * before) is a skill *discussing* the attack, as a review skill does, and is reported `low`. A
 * script's commands are never discussion: in `.sh`, `.py`, `.js` and the like, code is code, as is
 * a fenced code block in Markdown.
 */
import { visibleLine } from "../visible-text.ts";
import { NORMALISE_LIMITS, normalise, spelledOut } from "./normalise.ts";
import { RULES, RULES_BY_ID, type Rule, type Severity } from "./rules.ts";

export interface Finding {
  rule: string;
  severity: Severity;
  /** Relative to the skill's folder (or the layer's, for a skill file), `/`-separated. */
  file: string;
  line: number;
  column: number;
  message: string;
}

const SNIFF_BYTES = 8000;
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

function isBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Files whose text is the skill's own code, not prose: their commands are never "discussed". */
const CODE_FILE =
  /\.(?:sh|bash|zsh|fish|ps1|psm1|bat|cmd|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|rb|pl|php|go|rs|lua|r|swift|kt|java|cs|c|cc|cpp|h|hpp|applescript|scpt|command|tool)$/i;
const PROSE_FILE = /\.(?:md|markdown|mdx|txt|rst|ya?ml|json|html?)$/i;

const DISCUSSION =
  /\b(?:detect(?:s|ed|ing|ion)?|flag(?:s|ged)?|look(?:s|ing)?\s+(?:out\s+)?for|watch(?:ing)?\s+(?:out\s+)?for|search(?:ing)?\s+for|scan(?:s|ning)?\s+for|such\s+as|e\.g\.|for\s+example|examples?\s+of|patterns?|attacks?|attackers?|injections?|malicious|suspicious|red\s+flags?|phishing|threats?|jailbreaks?|vulnerab\w*|poison\w*|exploit\w*|never\s+(?:run|use|do)|do\s+not\s+(?:run|use)|don't\s+(?:run|use))\b/i;

const NEEDLES = [...new Set(RULES.flatMap((r) => (r.needles ?? []).flat()))].sort((a, b) => b.length - a.length);
/**
 * Every needle at every position, in one pass: a lookahead matches nothing, so needles that
 * overlap are all seen; at one position the longest wins, and a shorter one there is its prefix.
 */
const NEEDLE_PATTERN = new RegExp(
  `(?=(${NEEDLES.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")}))`,
  "gi",
);

/** Which rules' needles a text holds (case-insensitively): a rule none of whose needles appear cannot match. */
function needlesIn(text: string): (needle: string) => boolean {
  const found = new Set<string>();
  for (const m of text.matchAll(NEEDLE_PATTERN)) found.add(m[1]!.toLowerCase());
  return (needle) => found.has(needle) || [...found].some((f) => f.startsWith(needle));
}

/** Start offsets of each line, for positions; made once per file with a finding. */
class Lines {
  private readonly starts: number[] = [0];
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
    let open = false;
    for (let i = 0; i < line; i++) if (/^\s*(?:```|~~~)/.test(this.lineText(i))) open = !open;
    return open;
  }
}

function discussed(lines: Lines, line: number): boolean {
  for (let i = Math.max(0, line - 3); i <= line; i++) if (DISCUSSION.test(lines.lineText(i))) return true;
  return false;
}

/**
 * Whether the text at `column` of a prose line is inside a code span or quotation marks: a
 * document naming a phrase or a tag (`<system-reminder>`, "disregard the previous instruction")
 * rather than saying it.
 */
function quoted(line: string, column: number): boolean {
  const before = line.slice(0, column);
  const count = (c: string) => before.split(c).length - 1;
  return count("`") % 2 === 1 || count('"') % 2 === 1 || before.lastIndexOf("\u201c") > before.lastIndexOf("\u201d");
}

/** The matched text as a person can read it: invisible characters spelled out, long matches cut, secrets masked. */
function shown(rule: Rule, matched: string): string {
  if (rule.id === "embedded-secret") return `${matched.slice(0, 10)}…`;
  const visible = matched.replace(SPELLED, (c) => spelledOut(c));
  const line = visible.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}
const SPELLED = /[\p{Default_Ignorable_Code_Point}\u2800\u3164\uFFA0\u115F\u1160]/gu;

function tagText(matched: string): string {
  // Tag characters mirror ASCII (U+E0041 is a hidden "A"): what they spell is the point.
  const spelled = [...matched].map((c) => String.fromCharCode(c.codePointAt(0)! - 0xe0000)).join("");
  return `${matched.length / 2} tag characters spelling "${spelled.replace(/[^\x20-\x7e]/g, "?").slice(0, 60)}"`;
}

/** Every finding in one file of a skill. */
export function scanFile(path: string, bytes: Uint8Array): Finding[] {
  // Executables are told by their first bytes, NUL bytes near the start or not.
  const format = executableFormat(bytes);
  if (format) {
    const rule = RULES_BY_ID.get("executable-binary")!;
    const message = `${path} is ${format}: ${rule.reason}`;
    return [{ rule: rule.id, severity: rule.severity, file: path, line: 1, column: 1, message }];
  }
  // Any other binary (an image in assets/, a font, a PDF) is not text: no rule reads it.
  if (isBinary(bytes)) return [];
  return scanText(path, new TextDecoder().decode(bytes));
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
  // Quotation marks are prose in a document, syntax in YAML or JSON (`prompt: "…"` says it).
  const document = markdown || /\.(?:txt|rst)$/i.test(path);
  const present = needlesIn(norm.text);
  const ascii = !NON_ASCII.test(text);
  const place = (offset: number) => {
    original ??= new Lines(text);
    const line = original.lineOf(offset);
    return { line: line + 1, column: offset - original.startOf(line) + 1 };
  };
  for (const rule of RULES) {
    if (!rule.pattern) continue;
    if (rule.nonAscii && (rule.raw ? ascii : !NON_ASCII.test(norm.text))) continue;
    if (!rule.raw && rule.needles && !rule.needles.every((group) => group.some(present))) continue;
    const subject = rule.raw ? text : norm.text;
    rule.pattern.lastIndex = 0;
    for (const match of subject.matchAll(rule.pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      let severity: Severity = rule.severity;
      if (rule.check) {
        const judged = rule.check({ text: subject, start, end, path });
        if (judged === undefined) continue;
        if (judged !== "keep") severity = judged;
      }
      if (rule.raw) original ??= new Lines(text);
      else lines ??= new Lines(subject);
      const context = (rule.raw ? original : lines)!;
      const line = context.lineOf(start);
      const canBeDiscussed = rule.kind === "prose" || (rule.kind === "code" && proseFile);
      let note = "";
      if (
        canBeDiscussed &&
        severity !== "low" &&
        !(markdown && rule.kind === "code" && context.inFence(line)) &&
        (discussed(context, line) || (document && quoted(context.lineText(line), start - context.startOf(line))))
      ) {
        severity = "low";
        note = " (quoted as something to look for: reported, not blocked)";
      }
      const from = rule.raw ? start : norm.origin(start);
      // A match on normalised text is quoted as written, and as read when the two differ.
      const written = rule.raw ? match[0] : text.slice(from, norm.origin(end));
      const read = written === match[0] ? "" : ` (read as "${shown(rule, match[0])}")`;
      const what = rule.id === "hidden-tag-characters" ? tagText(match[0]) : `"${shown(rule, written)}"${read}`;
      findings.push({ rule: rule.id, severity, file: path, ...place(from), message: `${what}: ${rule.reason}${note}` });
    }
  }
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
  return findings.sort((a, b) => a.line - b.line || a.column - b.column || (a.rule < b.rule ? -1 : 1));
}
