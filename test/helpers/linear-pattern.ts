/**
 * A proof that a regular expression runs in time linear in its input under a backtracking engine
 * (JavaScriptCore's, Bun's), used on every audit rule (test/unit/audit-linear.test.ts; issue 48
 * item 8). redos-detector (src/invoke/pattern-safety.ts) proves a pattern free of catastrophic
 * backtracking within one attempt, but it cannot prove these long alternations within any sane
 * budget, and a scan of a whole file also pays for every start position: `curl[^\n]*\| sh` over one
 * line of n "curl"s is n attempts of n steps each. The proof here is structural:
 *
 * 1. Every repetition is bounded (`{0,256}`), except runs of whitespace (`\s+`) that begin after a
 *    character that cannot be whitespace and are followed by one that cannot be (or end the pattern).
 * 2. So such a run always matches a whole maximal run of whitespace in the text, never part of one.
 * 3. An attempt from one start position then does bounded work outside whitespace runs (bounded
 *    repetitions of bounded pieces), and inside a run it spends at most the run's length (greedy,
 *    then each step back fails at once on the next element, which cannot match whitespace).
 * 4. The start positions whose attempts reach a given run are bounded by the number of ways to pick
 *    the bounded pieces' lengths before it (the runs between are whole, so fixed): a constant C.
 * Hence a scan costs O(C · n), whatever the text. Backreferences are refused (they break 2–4).
 */
import { parse } from "regjsparser";

type Node = ReturnType<typeof parse>;

const WHITESPACE = [
  " ",
  "\t",
  "\n",
  "\r",
  "\v",
  "\f",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u2028",
  "\u202f",
  "\u3000",
  "\ufeff",
];

export interface LinearProof {
  linear: boolean;
  /** Why not: the offending piece of the pattern's source. */
  problems: string[];
}

export function proveLinear(pattern: RegExp): LinearProof {
  const flags = pattern.flags.replace(/[gy]/g, "");
  const ast = parse(pattern.source, flags, { lookbehind: true, namedGroups: true, unicodePropertyEscape: true });
  const problems: string[] = [];

  const canMatchWhitespace = (raw: string) => {
    const one = new RegExp(`^(?:${raw})$`, flags);
    return WHITESPACE.some((c) => one.test(c));
  };
  const onlyWhitespace = (node: Node): boolean => {
    if (node.type === "characterClassEscape") return node.value === "s";
    if (node.type === "value") return WHITESPACE.includes(String.fromCodePoint(node.codePoint));
    if (node.type === "characterClass")
      return !node.negative && node.body.every((member) => onlyWhitespace(member as Node));
    return false;
  };

  const zeroWidth = (n: Node) =>
    n.type === "anchor" || (n.type === "group" && n.behavior !== "normal" && n.behavior !== "ignore");
  const grouping = (n: Node) => n.type === "group" || n.type === "disjunction" || n.type === "alternative";

  /** Whether the first character `seq[i..]` consumes can never be whitespace; `after`: the same for what follows `seq`. */
  const firstNonWs = (seq: Node[], i: number, after: boolean): boolean => {
    if (i >= seq.length) return after;
    const n = seq[i]!;
    if (zeroWidth(n)) return firstNonWs(seq, i + 1, after);
    const rest = () => firstNonWs(seq, i + 1, after);
    if (grouping(n)) {
      const tail = rest();
      return alternativesOf(n).every((alt) => firstNonWs(alt, 0, tail));
    }
    if (n.type === "quantifier") return firstNonWs([n.body[0] as Node], 0, rest());
    return n.type !== "reference" && !canMatchWhitespace(n.raw);
  };
  /** Whether the last character `seq[..i]` consumed can never be whitespace; `before`: the same for what precedes `seq`. */
  const lastNonWs = (seq: Node[], i: number, before: boolean): boolean => {
    if (i < 0) return before;
    const n = seq[i]!;
    if (zeroWidth(n)) return lastNonWs(seq, i - 1, before);
    const rest = () => lastNonWs(seq, i - 1, before);
    if (grouping(n)) {
      const head = rest();
      return alternativesOf(n).every((alt) => lastNonWs(alt, alt.length - 1, head));
    }
    if (n.type === "quantifier") return lastNonWs([n.body[0] as Node], 0, rest());
    return n.type !== "reference" && !canMatchWhitespace(n.raw);
  };

  /**
   * Walks a sequence; `before`/`after`: what precedes it always ends, and what follows it always
   * begins, with a character that cannot be whitespace (`after` is also true at the pattern's end).
   */
  const walk = (seq: Node[], before: boolean, after: boolean, behind = false) => {
    seq.forEach((n, i) => {
      if (n.type === "reference") problems.push(`a backreference: ${n.raw}`);
      const prev = () => lastNonWs(seq, i - 1, before);
      const next = () => firstNonWs(seq, i + 1, after);
      if (n.type === "quantifier") {
        const body = n.body[0] as Node;
        if (n.max === undefined || n.max === Number.POSITIVE_INFINITY) {
          // A lookbehind reads back from every position, inside a run too: nothing unbounded there.
          if (behind || !(onlyWhitespace(body) && prev() && next())) problems.push(`an unbounded repetition: ${n.raw}`);
        }
        const again = n.max === undefined || n.max > 1;
        walk(
          [body],
          prev() && (!again || lastNonWs([body], 0, false)),
          next() && (!again || firstNonWs([body], 0, false)),
          behind,
        );
      } else if (grouping(n)) {
        // A lookahead starts where it stands (what precedes it is what precedes the position) and, once
        // it has matched, is never backtracked into: its end is as the pattern's end.
        const lookbehind = n.type === "group" && (n.behavior === "lookbehind" || n.behavior === "negativeLookbehind");
        const [b, a] = lookbehind ? [false, false] : zeroWidth(n) ? [prev(), true] : [prev(), next()];
        for (const alt of alternativesOf(n)) walk(alt, b, a, behind || lookbehind);
      }
    });
  };
  walk([ast], false, true);
  return { linear: problems.length === 0, problems };
}

function alternativesOf(n: Node): Node[][] {
  if (n.type === "disjunction") return n.body.map((alt) => (alt.type === "alternative" ? alt.body : [alt]) as Node[]);
  if (n.type === "alternative") return [n.body as Node[]];
  if (n.type === "group") {
    const body = n.body as Node[];
    if (body.length === 1 && body[0]!.type === "disjunction") return alternativesOf(body[0]!);
    if (body.length === 1 && body[0]!.type === "alternative") return [body[0]!.body as Node[]];
    return [body];
  }
  return [[n]];
}
