/**
 * Text a reader never sees, for `hidden-comment-instructions` (rules.ts): in Markdown, HTML and a
 * YAML skill's prompt (shown to the agent as Markdown), every place a renderer hides, judged by
 * what it says (issue 48 item 5, "hidden comments in any form"):
 *
 * - HTML comments `<!-- … -->` (unclosed ones too: they hide the rest of the file);
 * - the Markdown comment idioms, which are link reference definitions and so never rendered,
 *   label, destination and title alike: `[//]: # (…)`, `[comment]: <> (…)`, `[x]: url "…"`;
 * - elements hidden by an attribute or a style: `<div hidden>`, `display:none`, `visibility:hidden`,
 *   `font-size:0`, `opacity:0`.
 *
 * What hides an instruction: words to the agent (`you`, `assistant`, `Claude`…) with a directive,
 * or, with nobody named, an imperative with what makes it an attack (a URL to send to, a
 * credential to read, a command to run, a config to write, secrecy, an override). An editor's
 * note (`<!-- TODO: add screenshot -->`, `<!-- prettier-ignore -->`) has neither. A `<details>`
 * block is folded, not hidden: a reader opens it. What a code span or a fenced block holds is
 * shown as written, never hidden.
 *
 * The pattern finds the hidden places (each bounded); the check reads one of them, at most
 * BODY_LIMIT characters: linear in the text, and every pattern here passes the same proof as the
 * rules'.
 */
import type { MatchContext, Severity } from "./match-context.ts";

/** How much of one hidden place is read: an attack padded past it is still in the place's first part, its opening. */
const BODY_LIMIT = 16_000;

const COMMENT = "<!--(?:(?!-->)[\\s\\S]){0,16000}";
/** A link reference definition: `[label]: destination "title"`, the title on the same line or the next. */
const REFERENCE_DEFINITION =
  "(?:^|\\n) {0,3}\\[[^\\]\\n]{1,999}\\]:[ \\t]{0,16}(?:<[^>\\n]{0,2000}>|\\S{1,2000})(?:[ \\t]{0,16}\\n?[ \\t]{0,16}(?:\"[^\"]{0,4000}\"|'[^']{0,4000}'|\\([^)]{0,4000}\\)))?";
/** Styles and attributes that hide an element: gone, transparent, off-screen, too small or white to read. */
const HIDING_STYLE = [
  String.raw`\bhidden\b`,
  String.raw`display\s{0,16}:\s{0,16}none`,
  String.raw`visibility\s{0,16}:\s{0,16}hidden`,
  String.raw`font-size\s{0,16}:\s{0,16}(?:0(?![.\d]{0,8}[1-9])|[01](?:\.\d{1,4})?px\b)`,
  String.raw`opacity\s{0,16}:\s{0,16}0(?![.\d]{0,8}[1-9])`,
  String.raw`(?:left|top|text-indent|margin-left)\s{0,16}:\s{0,16}-\d{3,8}`,
  String.raw`clip\s{0,16}:\s{0,16}rect\(\s{0,16}0`,
  String.raw`(?:^|[\s;"'])(?:width|height|max-height|max-width)\s{0,16}:\s{0,16}0(?![.\d]{0,8}[1-9])`,
  String.raw`(?:^|[\s;"'])color\s{0,16}:\s{0,16}(?:white|#fff(?:fff)?\b|transparent|rgba\([^)]{0,40},\s{0,16}0\s{0,16}\))`,
].join("|");
const HIDING_STYLE_TEST = new RegExp(HIDING_STYLE, "i");
const HIDING_ELEMENTS = "div|span|p|section|aside|font|small|sub|sup|a|em|strong|i|b|table|td|li|ul";
/** An opening tag (the check reads its attributes: hidden, or an image's alt text and title). */
const OPEN_TAG = String.raw`<(?:${HIDING_ELEMENTS}|img)\b[^<>]{1,1024}>`;
/** A hidden element's body, up to its closing tag (or BODY_LIMIT). */
const ELEMENT_BODY = new RegExp(String.raw`(?:(?!</(?:${HIDING_ELEMENTS})>)[\s\S]){0,16000}`, "y");
/** Words shown only when an image fails to load or a pointer rests on a link: alt text and titles. */
// Neither crosses a bracket: a line of unclosed `![a](http://x?` costs a few steps per bracket, not a bound's worth.
const IMAGE_ALT = String.raw`!\[[^\[\]\n]{1,2000}\]`;
const LINK_TITLE = String.raw`\]\(\s{0,16}<?[^\s()<>\[\]]{0,2000}>?\s{1,16}(?:"[^"\n]{1,2000}"|'[^'\n]{1,2000}')\s{0,16}\)`;

export const HIDDEN_PLACES = new RegExp(
  [COMMENT, REFERENCE_DEFINITION, OPEN_TAG, IMAGE_ALT, LINK_TITLE].join("|"),
  // No `m` flag: `^` on every line costs a check at every position; a definition's line start is matched as `\n`.
  "gi",
);

/** Someone the words are aimed at. */
const ADDRESSEE =
  "\\b(?:[Yy]ou|YOU|[Aa]ssistant|ASSISTANT|[Aa]gent|AGENT|AI|[Mm]odel|LLM|Claude|CLAUDE|Cursor|Copilot|Codex|Gemini|ChatGPT|GPT)\\b(?![-/])";
/** What someone is told to do (not "should" alone: "you should not edit this by hand" is a note to maintainers). */
const DIRECTIVE = String.raw`\b(?:ignore|disregard|forget|do\s{1,16}not\s{1,16}(?:tell|mention|show|reveal|ask)|don't\s{1,16}(?:tell|mention|show|reveal|ask)|run|execute|read|send|upload|post|fetch|download|install|delete|include|append|insert|copy|paste|forward|email|reveal|tell|mention|open|write|add|print|output)\b`;
/** Words to someone, and what they are told, within one stretch. */
const ADDRESSED = new RegExp(`${ADDRESSEE}[\\s\\S]{0,160}?${DIRECTIVE.replace(/\\b\(\?:/, "\\b(?:")}`, "i");
/** An imperative, as a clause opens with it, and what makes it an attack, within one stretch of words. */
const ATTACK_PAIRS: readonly RegExp[] = [
  // Send something somewhere.
  /\b(?:send|upload|post|forward|email|exfiltrate|submit|transmit|sync|share|report|leak|pipe)\b[\s\S]{0,200}?(?:https?:\/\/|\bwebhook|\bendpoint\b|\bpaste\s{0,16}(?:bin|site)|\b[\w.-]{1,64}@[\w-]{1,64}\.[a-z]{2,16}\b)/i,
  // Read or show a credential.
  /\b(?:read|open|cat|copy|include|attach|print|output|collect|dump|list|paste|add|append|send|upload|post|show|reveal)\b[\s\S]{0,200}?(?:~\/\.|\$HOME\/\.|\/etc\/(?:passwd|shadow)|\.env\b|\bcredentials?\b|\bsecrets?\b|\btokens?\b|\bpasswords?\b|\bapi[\s_-]{0,4}keys?\b|\bprivate\s{1,16}keys?\b|\bid_(?:rsa|ed25519|ecdsa)\b|\.ssh\b|\.aws\b|\benv(?:ironment)?\s{1,16}(?:variables|vars)\b|`env`|\bprintenv\b|\bsystem\s{1,16}prompt\b|\bcookies\b)/i,
  // Run something fetched, or run it unseen.
  /\b(?:run|execute|exec|source|eval|install|download|fetch|curl|wget)\b[\s\S]{0,200}?(?:https?:\/\/|\|\s{0,16}(?:ba|z)?sh\b|\bsilently\b|\bquietly\b|\bsecretly\b|\bin\s{1,16}the\s{1,16}background\b|\bwithout\s{1,16}(?:asking|telling|confirm\w{0,8}|permission|mentioning|showing))/i,
  // Write an agent's or a shell's configuration.
  /\b(?:write|add|append|insert|set|edit|modify|change|put|create)\b[\s\S]{0,200}?(?:settings(?:\.local)?\.json|\.claude\b|\.cursor\b|\.codex\b|\.bashrc|\.zshrc|\.profile|\bcrontab\b|\bhooks?\b|mcp\.json|config\.toml|authorized_keys)/i,
  // Override.
  /\b(?:ignore|disregard|forget|override|bypass)\b[\s\S]{0,120}?\b(?:instructions?|rules|guidelines|guardrails|polic(?:y|ies)|previous|prior|above|safety)\b/i,
  // Secrecy, whoever it names.
  /\b(?:do\s+not|don't|never|must\s+not)\s{1,16}(?:tell|mention|show|reveal|inform|report|say)\b|\bkeep\s{1,16}(?:this|it)\s{1,16}(?:secret|hidden|quiet|between\s{1,16}us)\b|\bkeep\s{1,16}quiet\b|\bstay\s{1,16}silent\b|\b(?:silently|quietly|secretly)\b|\bwithout\s{1,16}(?:telling|informing|mentioning|asking)\b|\bdoes\s{1,16}not\s{1,16}need\s{1,16}to\s{1,16}know\b/i,
];

/** The last text's fenced lines' extents: every match of a file asks the same question of the same text. */
let fencesIn: { text: string; fences: [number, number][] } | undefined;
function inFence(text: string, at: number): boolean {
  if (fencesIn?.text !== text) {
    const fences: [number, number][] = [];
    let open = -1;
    for (const m of text.matchAll(/^[ \t]{0,64}(?:```|~~~)/gm)) {
      if (open < 0) open = m.index;
      else {
        fences.push([open, m.index]);
        open = -1;
      }
    }
    if (open >= 0) fences.push([open, text.length]);
    fencesIn = { text, fences };
  }
  // The last fence opening before `at` (fences are in order): a binary search, not a walk per match.
  const fences = fencesIn.fences;
  let lo = 0;
  let hi = fences.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (fences[mid]![0] < at) lo = mid;
    else hi = mid - 1;
  }
  const fence = fences[lo];
  return fence !== undefined && at > fence[0] && at < fence[1];
}

/** Backticks counted so far on the current line of the last text: matches come in order, so each character is read once. */
let ticksIn: { text: string; at: number; ticks: number } | undefined;

/** Whether `at` is inside a code span on its line: an odd number of backticks before it. */
function inCodeSpan(text: string, at: number): boolean {
  let counted = ticksIn;
  if (counted === undefined || counted.text !== text || at < counted.at) counted = { text, at: 0, ticks: 0 };
  for (let i = counted.at; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) counted.ticks = 0;
    else if (c === 0x60) counted.ticks++;
  }
  counted.at = at;
  ticksIn = counted;
  return counted.ticks % 2 === 1;
}

/** Whether hidden words give the agent an instruction. */
export function instructs(body: string): boolean {
  if (ADDRESSED.test(body)) return true;
  return ATTACK_PAIRS.some((pair) => pair.test(body));
}

const DEFINITION_PARTS =
  /^ {0,3}\[([^\]\n]{1,999})\]:[ \t]{0,16}(?:<[^>\n]{0,2000}>|\S{1,2000})[ \t]{0,16}\n?[ \t]{0,16}([\s\S]{0,4002})$/;
/** An image tag's words a reader does not see: its alt text and title. */
const IMAGE_WORDS = /\b(?:alt|title|aria-label)\s{0,16}=\s{0,16}(?:"([^"]{0,2000})"|'([^']{0,2000})')/gi;
const MARKUP = /\.(?:md|markdown|mdx|html?|ya?ml)$/i;

/** hidden-comment-instructions' judge: a hidden place, shown nowhere, whose words instruct. */
export function hiddenInstruction({ text, start, end, path }: MatchContext): Severity | undefined | "keep" {
  if (!MARKUP.test(path)) return undefined;
  if (inCodeSpan(text, start) || inFence(text, start)) return undefined;
  const matched = text.slice(start, Math.min(end, start + BODY_LIMIT)).replace(/^\n/, "");
  return instructs(hiddenWords(text, matched, end)) ? "keep" : undefined;
}

/** The last text's end of the hidden element bodies read: an element inside one is read with it, once. */
let readIn: { text: string; to: number } | undefined;

/** What a hidden place says: a definition's label and title, an image's alt text, a link's title, a comment's or hidden element's body. */
function hiddenWords(text: string, matched: string, end: number): string {
  // A reference definition hides its label and title; its destination is a link's target, no instruction.
  const definition = DEFINITION_PARTS.exec(matched);
  if (definition) return `${definition[1]} ${definition[2] ?? ""}`;
  if (matched.startsWith("](")) return matched.replace(/^\]\(\s{0,16}<?[^\s)>]{0,2000}>?/, " ");
  if (matched.startsWith("<!--") || matched.startsWith("![")) return matched.slice(2);
  if (/^<img\b/i.test(matched)) return [...matched.matchAll(IMAGE_WORDS)].map((m) => m[1] ?? m[2]).join(" ");
  // An opening tag: hidden by an attribute or a style, its body is what is hidden.
  if (!HIDING_STYLE_TEST.test(matched)) return "";
  if (readIn?.text === text && end - matched.length < readIn.to) return "";
  ELEMENT_BODY.lastIndex = end;
  const body = ELEMENT_BODY.exec(text)?.[0] ?? "";
  readIn = { text, to: end + body.length };
  return body;
}

/** The fixed patterns of the check, for the linear-time proof. */
export const HIDDEN_TEXT_PATTERNS: readonly RegExp[] = [
  HIDDEN_PLACES,
  HIDING_STYLE_TEST,
  ELEMENT_BODY,
  ADDRESSED,
  DEFINITION_PARTS,
  IMAGE_WORDS,
  ...ATTACK_PAIRS,
];
