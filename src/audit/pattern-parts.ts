/**
 * A rule's pattern as the parts it is made of, each run only where a text can hold one of its
 * matches. A rule's pattern is one alternation of many spellings (`\bcurl …|\brequests\.post(…`);
 * a regular expression tries every alternative at every position of the text, so a file of prose
 * paid for thirty alternatives whose words it never holds (issue 48's cold audit doubled so).
 * Each top-level alternative gets, from the pattern's source and once when the rules load, the
 * literal strings one of which every match contains (needles) and, where it has them, the strings
 * every match starts with (anchors). One walk over a text (NeedleScanner) finds which needles it
 * holds and where each anchor starts; an alternative runs only over a text holding a needle, and
 * one with anchors is tried only where an anchor starts. The parts' matches are merged as the
 * whole alternation returns them: leftmost first, the earlier alternative first at one position,
 * the search going on from the end of the last (test/unit/audit-pattern-parts.test.ts holds every
 * rule's parts to the whole pattern's matches).
 *
 * Needles and anchors are necessary conditions, never guesses: a term counts only when every
 * match must contain it (no optional or repeated-from-zero part, no class wider than one letter's
 * two cases), and the text is compared with ASCII letters folded, which can only let more through.
 * The rules read normalised text (normalise.ts: NFKC, look-alikes folded), where no character
 * beyond ASCII folds to an ASCII letter under `i`.
 */

/** A match as the scan reads it: where it starts, and its text. */
export interface PartMatch {
  readonly index: number;
  readonly text: string;
}

/** Splits a pattern's source at its top-level `|`, honouring escapes, classes and groups. */
export function topLevelAlternatives(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      parts.push(source.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(source.slice(from));
  return parts;
}

/** What one term of a sequence requires: strings one of which it always matches, or nothing known. */
type Needles = string[] | undefined;

/**
 * What a sequence requires: somewhere in a match (`needles`), and at its very start (`anchors`:
 * every match begins with one of them).
 */
interface Requirement {
  needles: Needles;
  anchors: Needles;
  /** Every anchor stands after a `\\b`: where one begins with a word character, it begins a word. */
  wordStart: boolean;
}

/** Escapes that stand for one literal character. */
const LITERAL_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", "0": "\0" };

class Reader {
  i = 0;
  constructor(readonly source: string) {}
  get done(): boolean {
    return this.i >= this.source.length;
  }
  peek(): string | undefined {
    return this.source[this.i];
  }
}

/** The better of two requirements: the one whose shortest string is longest (fewer strings on a tie). */
function better(a: Needles, b: Needles): Needles {
  if (!a) return b;
  if (!b) return a;
  const shortest = (n: string[]) => n.reduce((a, s) => Math.min(a, s.length), Number.POSITIVE_INFINITY);
  const [la, lb] = [shortest(a), shortest(b)];
  if (la !== lb) return la > lb ? a : b;
  return a.length <= b.length ? a : b;
}

/**
 * A sequence up to `)` or a top-level `|` (the reader stops on it): the best requirement of its
 * terms, runs of literal characters joined into one string; and the strings it starts with, when
 * its first consuming term is a literal run or a group whose every alternative has a start.
 */
function sequence(r: Reader): Requirement {
  let best: Needles;
  let run = "";
  // The starts of a match: while the leading terms are optional, each adds its own starts.
  const starts: string[] = [];
  let anchors: Needles;
  let boundary = false; // a \b before the first consuming term
  let wordStart = true; // every start found so far stands after a \b
  let first = true; // every term read so far was optional (the next may start a match)
  let anchoring = false; // the literal run being read is the sequence's start
  let runAtBoundary = false;
  const endRun = () => {
    if (run) best = better(best, [run]);
    if (anchoring && run) {
      anchors = [...starts, run];
      wordStart &&= runAtBoundary;
    }
    anchoring = false;
    run = "";
  };
  while (!r.done && r.peek() !== ")" && r.peek() !== "|") {
    const term = atom(r);
    const { min, max } = quantifier(r);
    if (term.kind === "assertion") {
      // Zero-width: the characters either side stay adjacent.
      if (term.boundary && first && !run) boundary = true;
      continue;
    }
    if (term.kind === "char" && min === 1 && max === 1) {
      if (first) {
        anchoring = true;
        runAtBoundary = boundary;
      }
      first = false;
      run += term.char;
      continue;
    }
    endRun();
    if (first && term.kind === "needles" && min <= 1 && max === 1 && term.anchors) {
      if (min === 1) anchors = [...starts, ...term.anchors];
      else for (const a of term.anchors) starts.push(a);
      wordStart &&= boundary || term.wordStart;
      first = min === 0;
    } else first = false;
    // A run of one repeated character still requires the character; its first copy only.
    if (term.kind === "char" && min >= 1) best = better(best, [term.char]);
    else if (term.kind === "needles" && min >= 1) best = better(best, term.needles);
  }
  endRun();
  return { needles: best, anchors, wordStart: anchors !== undefined && wordStart };
}

/** Alternatives up to the closing `)`: a match holds one of the union, if every alternative is known. */
function alternation(r: Reader): Requirement {
  const needles: string[] = [];
  const anchors: string[] = [];
  let knownNeedles = true;
  let knownAnchors = true;
  let wordStart = true;
  for (;;) {
    const one = sequence(r);
    if (one.needles) for (const n of one.needles) needles.push(n);
    else knownNeedles = false;
    if (one.anchors) for (const a of one.anchors) anchors.push(a);
    else knownAnchors = false;
    wordStart &&= one.wordStart;
    if (r.peek() !== "|") break;
    r.i++;
  }
  return {
    needles: knownNeedles ? [...new Set(needles)] : undefined,
    anchors: knownAnchors ? [...new Set(anchors)] : undefined,
    wordStart: knownAnchors && wordStart,
  };
}

type Atom =
  | { kind: "char"; char: string }
  | { kind: "needles"; needles: Needles; anchors: Needles; wordStart: boolean }
  | { kind: "assertion"; boundary: boolean };

const UNKNOWN: Atom = { kind: "needles", needles: undefined, anchors: undefined, wordStart: false };

function atom(r: Reader): Atom {
  const c = r.source[r.i++]!;
  if (c === "\\") {
    const e = r.source[r.i++]!;
    if (e === "b" || e === "B") return { kind: "assertion", boundary: e === "b" };
    if (e in LITERAL_ESCAPES) return { kind: "char", char: LITERAL_ESCAPES[e]! };
    if (e === "x") {
      r.i += 2;
      return { kind: "char", char: String.fromCharCode(Number.parseInt(r.source.slice(r.i - 2, r.i), 16)) };
    }
    if (e === "u" || e === "p" || e === "P" || e === "k" || e === "c") {
      // \u{…}, \p{…}, \k<…>: skipped whole; what they match is not taken as a literal.
      if (r.peek() === "{" || r.peek() === "<") r.i = r.source.indexOf(r.peek() === "{" ? "}" : ">", r.i) + 1;
      else if (e === "u") r.i += 4;
      else if (e === "c") r.i++;
      return UNKNOWN;
    }
    if (/[dDwWsS1-9]/.test(e)) return UNKNOWN;
    return { kind: "char", char: e.toLowerCase() };
  }
  if (c === "[") return charClass(r);
  if (c === "(") {
    let lookaround = false;
    if (r.source.startsWith("?:", r.i)) r.i += 2;
    else if (/^\?<?[=!]/.test(r.source.slice(r.i, r.i + 3))) {
      lookaround = true;
      r.i += r.source[r.i + 1] === "<" ? 3 : 2;
    } else if (r.source.startsWith("?<", r.i)) r.i = r.source.indexOf(">", r.i) + 1;
    const inner = alternation(r);
    r.i++; // `)`
    return lookaround ? { kind: "assertion", boundary: false } : { kind: "needles", ...inner };
  }
  if (c === "^" || c === "$") return { kind: "assertion", boundary: false };
  if (c === ".") return UNKNOWN;
  return { kind: "char", char: c.toLowerCase() };
}

/** A class is one literal only when it holds one letter in its two cases (`[Rr]`) or one character. */
function charClass(r: Reader): Atom {
  const start = r.i;
  while (r.source[r.i] !== "]") r.i += r.source[r.i] === "\\" ? 2 : 1;
  const body = r.source.slice(start, r.i++);
  if (/^[A-Za-z]{2}$/.test(body) && body[0]!.toLowerCase() === body[1]!.toLowerCase())
    return { kind: "char", char: body[0]!.toLowerCase() };
  if (/^[^\\^\]-]$/.test(body)) return { kind: "char", char: body.toLowerCase() };
  return UNKNOWN;
}

function quantifier(r: Reader): { min: number; max: number } {
  const c = r.peek();
  let q = { min: 1, max: 1 };
  if (c === "*") q = { min: 0, max: Infinity };
  else if (c === "+") q = { min: 1, max: Infinity };
  else if (c === "?") q = { min: 0, max: 1 };
  else if (c === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(r.source.slice(r.i));
    if (!m) return q;
    r.i += m[0].length - 1;
    q = { min: Number(m[1]), max: m[2] ? (m[3] ? Number(m[3]) : Infinity) : Number(m[1]) };
  } else return q;
  r.i++;
  if (r.peek() === "?") r.i++;
  return q;
}

/**
 * What every match of `source` holds (lowercase strings): one of `needles` somewhere, and one of
 * `anchors` at its start; either undefined when the source gives none for certain. Needles
 * shorter than three characters are not worth a test; an anchor of two still spares a scan.
 */
export function requirementOf(source: string): {
  needles?: readonly string[];
  anchors?: readonly string[];
  wordStart?: boolean;
} {
  const reader = new Reader(source);
  const { needles, anchors, wordStart } = alternation(reader);
  if (!reader.done) return {};
  return {
    ...(needles?.every((n) => n.length >= 3) ? { needles } : {}),
    ...(anchors?.every((n) => n.length >= 2) ? { anchors, wordStart } : {}),
  };
}

/** One alternative of a rule's pattern: its own expression and what a match of it must hold. */
export interface Part {
  /** Global: searched from a position. */
  readonly pattern: RegExp;
  /** Sticky: tried at one position (where an anchor stands). */
  readonly sticky: RegExp;
  /** Lowercase; a match holds at least one. Undefined: nothing is known. */
  readonly needles: readonly string[] | undefined;
  /** Lowercase; a match starts with one. Undefined: it may start anywhere. */
  readonly anchors: readonly string[] | undefined;
  /** An anchor that begins with a word character begins a word (the part opens with `\\b`). */
  readonly wordStart: boolean;
  /** The needles' and anchors' numbers in the scanner built over this part (NeedleScanner). */
  ids?: { readonly needles?: Int32Array; readonly anchors?: Int32Array };
}

/**
 * A rule's pattern split into parts, or undefined when splitting it could change what it matches
 * or would spare nothing. A pattern of one alternative is one part when its matches have anchors.
 */
export function patternParts(pattern: RegExp): readonly Part[] | undefined {
  // A backreference counts groups across alternatives; a split would renumber them.
  if (/\\[1-9]|\\k</.test(pattern.source)) return undefined;
  const parts = topLevelAlternatives(pattern.source).map((source) => {
    const { needles, anchors, wordStart = false } = requirementOf(source);
    return {
      pattern: new RegExp(source, pattern.flags),
      sticky: new RegExp(source, `${pattern.flags.replace("g", "")}y`),
      needles: anchors ?? needles,
      anchors,
      wordStart,
    };
  });
  return parts.some((p) => p.needles) ? parts : undefined;
}

/** What the needle scan of one text found: which strings it holds, and where the anchors start. */
export interface Found {
  holds(needle: string): boolean;
  /** Whether the text holds any of the needles numbered `ids` (the scanner's numbers). */
  holdsAny(ids: Int32Array): boolean;
  /** Where any of the anchors numbered `ids` starts in the text (case-insensitively), ascending. */
  starts(ids: Int32Array): Int32Array;
}

/**
 * Every match of the whole alternation, from the parts whose needles the text holds, exactly as
 * the alternation returns them: the leftmost match next, the earlier part where two start at one
 * position, the search going on from its end. A part with anchors is tried only where one of them
 * starts; any other part keeps its next match from the current position and searches again only
 * when that one has been passed.
 */
export function* partMatches(parts: readonly Part[], text: string, found: Found): Generator<PartMatch> {
  const live = parts.filter((part) => !part.ids?.needles || found.holdsAny(part.ids.needles));
  const anchored = live.map((part): Anchored | undefined =>
    part.ids?.anchors ? { starts: found.starts(part.ids.anchors), cursor: 0 } : undefined,
  );
  const next: (RegExpExecArray | null)[] = live.map(() => null);
  const stale = live.map(() => true);
  let at = 0;
  while (at <= text.length) {
    let best = -1;
    for (let n = 0; n < live.length; n++) {
      if (stale[n] || (next[n] && next[n]!.index < at)) {
        next[n] = nextMatch(live[n]!, text, at, anchored[n]);
        stale[n] = false;
      }
      const m = next[n];
      if (m && (best < 0 || m.index < next[best]!.index)) best = n;
    }
    if (best < 0) return;
    const m = next[best]!;
    yield { index: m.index, text: m[0] };
    // An empty match moves on one character (one code point under `u`), as matchAll does.
    const wide = live[best]!.pattern.unicode && (text.codePointAt(m.index) ?? 0) > 0xffff;
    at = m[0].length > 0 ? m.index + m[0].length : m.index + (wide ? 2 : 1);
  }
}

/** A part's leftmost match at or after `at`: tried where its anchors start, or searched for. */
function nextMatch(part: Part, text: string, at: number, anchored: Anchored | undefined): RegExpExecArray | null {
  if (!anchored) {
    part.pattern.lastIndex = at;
    return part.pattern.exec(text);
  }
  const { starts } = anchored;
  for (let i = anchored.cursor; i < starts.length; i++) {
    if (starts[i]! < at) continue;
    part.sticky.lastIndex = starts[i]!;
    const m = part.sticky.exec(text);
    if (m) {
      anchored.cursor = i;
      return m;
    }
  }
  anchored.cursor = starts.length;
  return null;
}

/** A part's anchor starts in one text, and how far they have been tried. */
interface Anchored {
  readonly starts: Int32Array;
  cursor: number;
}

/**
 * Every needle of the rules, found in one walk over a text (Aho–Corasick over ASCII, letters folded
 * to lowercase) instead of a search per needle, with the start of every anchor, so a part is tried
 * only where a match can begin (and, for an anchor after `\\b`, only where a word begins). Built
 * once when the audit loads.
 */
export class NeedleScanner {
  private readonly ids = new Map<string, number>();
  private readonly lengths: number[] = [];
  /** Per needle: 0 presence only, 1 an anchor anywhere, 2 an anchor only where a word begins. */
  private readonly anchor: number[] = [];
  /** Transitions, each to the next state's row (the state times 128): one index per character. */
  private readonly delta: Int32Array;
  /** Per state, the needles that end there (its own and its suffixes'). */
  private readonly outputs: number[][];
  /** Per state: 0 no needle ends there, 1 only needles to mark once, 2 an anchor whose starts count. */
  private readonly ends: Uint8Array;

  /**
   * Over the rules' own needles and the parts': each part is given its needles' and anchors'
   * numbers here, so a text's test is an index, not a string's lookup.
   */
  constructor(needles: Iterable<string>, parts: readonly Part[]) {
    const add = (word: string, kind: number) => {
      if (!/^[\x00-\x7f]+$/.test(word)) return;
      let id = this.ids.get(word);
      if (id === undefined) {
        id = this.lengths.length;
        this.ids.set(word, id);
        this.lengths.push(word.length);
        this.anchor.push(0);
      }
      // An anchor used anywhere is counted anywhere; only one every user opens with \b is filtered.
      const was = this.anchor[id]!;
      if (kind > 0) this.anchor[id] = was === 0 ? kind : Math.min(was, kind);
    };
    for (const n of needles) add(n.toLowerCase(), 0);
    for (const part of parts) {
      for (const n of part.needles ?? []) add(n, 0);
      for (const a of part.anchors ?? []) add(a, part.wordStart && /^\w/.test(a) ? 2 : 1);
    }
    // A word the walk cannot see (beyond ASCII) leaves its part unfiltered: it always runs.
    const numbers = (words: readonly string[] | undefined) =>
      words?.every((w) => this.ids.has(w)) ? Int32Array.from(words, (w) => this.ids.get(w)!) : undefined;
    for (const part of parts) {
      const anchors = numbers(part.anchors);
      part.ids = { needles: numbers(part.needles), ...(anchors ? { anchors } : {}) };
    }
    // The trie.
    const trie: number[][] = [[]];
    const ends: number[][] = [[]];
    for (const [word, id] of this.ids) {
      let state = 0;
      for (let i = 0; i < word.length; i++) {
        const c = word.charCodeAt(i);
        let to = trie[state]![c];
        if (to === undefined) {
          to = trie.length;
          trie[state]![c] = to;
          trie.push([]);
          ends.push([]);
        }
        state = to;
      }
      ends[state]!.push(id);
    }
    // Breadth first: each state's failure link, and its transitions completed from it.
    this.delta = new Int32Array(trie.length * 128);
    this.outputs = new Array(trie.length);
    this.ends = new Uint8Array(trie.length);
    this.outputs[0] = [];
    const fail = new Int32Array(trie.length);
    const queue: number[] = [];
    for (let c = 0; c < 128; c++) {
      const to = trie[0]![c];
      if (to !== undefined) {
        this.delta[c] = to;
        queue.push(to);
      }
    }
    for (let q = 0; q < queue.length; q++) {
      const state = queue[q]!;
      const out = [...ends[state]!, ...this.outputs[fail[state]!]!];
      this.outputs[state] = out;
      if (out.length > 0) this.ends[state] = out.some((id) => this.anchor[id]! > 0) ? 2 : 1;
      for (let c = 0; c < 128; c++) {
        const to = trie[state]![c];
        if (to === undefined) this.delta[state * 128 + c] = this.delta[fail[state]! * 128 + c]!;
        else {
          fail[to] = this.delta[fail[state]! * 128 + c]!;
          this.delta[state * 128 + c] = to;
          queue.push(to);
        }
      }
    }
    // Rows, not states: the walk indexes `delta` without a multiplication.
    for (let i = 0; i < this.delta.length; i++) this.delta[i]! *= 128;
  }

  /** What `text` holds; needles the scanner was not built with are looked for on demand. */
  scan(text: string): Found {
    const held = new Uint8Array(this.lengths.length);
    const seen = new Uint8Array(this.ends.length);
    const positions = new Map<number, number[]>();
    const { delta, outputs, ends, anchor, lengths } = this;
    let row = 0; // the state times 128: its row of `delta`
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 128) {
        row = 0;
        continue;
      }
      row = delta[row + (c >= 65 && c <= 90 ? c | 32 : c)]!;
      const state = row >> 7;
      const end = ends[state]!;
      if (end === 0 || (end === 1 && seen[state] === 1)) continue;
      seen[state] = 1;
      for (const id of outputs[state]!) {
        held[id] = 1;
        const kind = anchor[id]!;
        if (kind === 0) continue;
        const at = i - lengths[id]! + 1;
        if (kind === 2 && at > 0 && isWordChar(text.charCodeAt(at - 1))) continue;
        const list = positions.get(id);
        if (list) list.push(at);
        else positions.set(id, [at]);
      }
    }
    let lower: string | undefined;
    const ids = this.ids;
    return {
      holds(needle) {
        const id = ids.get(needle);
        if (id !== undefined) return held[id] === 1;
        lower ??= text.toLowerCase();
        return lower.includes(needle);
      },
      holdsAny(numbers) {
        for (const id of numbers) if (held[id] === 1) return true;
        return false;
      },
      starts(numbers) {
        let count = 0;
        for (const id of numbers) count += positions.get(id)?.length ?? 0;
        const all = new Int32Array(count);
        let at = 0;
        for (const id of numbers) {
          const list = positions.get(id);
          if (list) for (const p of list) all[at++] = p;
        }
        return numbers.length > 1 ? all.sort() : all;
      },
    };
  }
}

/** `\\w` as a regular expression without `u` reads it: ASCII letters, digits and `_`. */
function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
