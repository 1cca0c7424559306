import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { normalise } from "../../src/audit/normalise.ts";
import {
  NeedleScanner,
  type Part,
  partMatches,
  patternParts,
  requirementOf,
  topLevelAlternatives,
} from "../../src/audit/pattern-parts.ts";
import { RULES } from "../../src/audit/rules.ts";

/**
 * A rule's pattern run in parts (src/audit/pattern-parts.ts) must return exactly what the whole
 * pattern returns: the parts are a speed-up, never a second opinion. The needles they are skipped
 * by must be necessary (every match holds one), and the anchors they are tried at must be every
 * place a match can start.
 */

describe("what a pattern's source requires of every match", () => {
  test("a literal run is a needle and, at the start, an anchor", () => {
    expect(requirementOf("\\bsmtplib\\.SMTP")).toEqual({
      needles: ["smtplib.smtp"],
      anchors: ["smtplib.smtp"],
      wordStart: true,
    });
  });

  test("an alternation's needles are the union of its alternatives'", () => {
    expect(requirementOf("\\b(?:requests|httpx)\\.(?:post|put)\\(")).toEqual({
      needles: ["requests", "httpx"],
      anchors: ["requests", "httpx"],
      wordStart: true,
    });
  });

  test("an optional leading group adds its starts to the rest's", () => {
    expect(requirementOf("(?:all\\s+)?(?:previous|prior)\\s+instructions").anchors).toEqual([
      "all",
      "previous",
      "prior",
    ]);
  });

  test("a class of one letter's two cases is that letter; a wider class is nothing known", () => {
    expect(requirementOf("[Rr]ead\\s+[a-z]+").anchors).toEqual(["read"]);
    expect(requirementOf("[a-z]{3}foo").anchors).toBeUndefined();
    expect(requirementOf("[a-z]{3}foo").needles).toEqual(["foo"]);
  });

  test("a term that may be absent gives no needle; one alternative without any spoils the union", () => {
    expect(requirementOf("(?:curl)?\\s*x")).toEqual({});
    expect(requirementOf("(?:curl|\\w+)\\s+--data")).toEqual({ needles: ["--data"] });
  });

  test("needles shorter than three characters are not kept; anchors of two are", () => {
    expect(requirementOf("\\bnc\\s+-e")).toEqual({ anchors: ["nc"], wordStart: true });
  });

  test("no \\b before the start: anchors may begin inside a word", () => {
    expect(requirementOf("curl\\b").wordStart).toBe(false);
    expect(requirementOf("\\b(?:curl|\\bwget)").wordStart).toBe(true);
  });

  test("lookarounds are zero-width: the literal either side stays one run", () => {
    expect(requirementOf("abc(?=d)def").needles).toEqual(["abcdef"]);
  });

  test("top-level alternatives are split outside classes, groups and escapes only", () => {
    expect(topLevelAlternatives("a|[|]|(b|c)|\\|")).toEqual(["a", "[|]", "(b|c)", "\\|"]);
  });

  test("a pattern with a backreference is never split (the split would renumber its groups)", () => {
    expect(patternParts(/(["'])curl\1|wget/g)).toBeUndefined();
  });
});

/** Every match of the whole pattern, as the scan used to read it. */
function whole(pattern: RegExp, text: string): [number, string][] {
  pattern.lastIndex = 0;
  return [...text.matchAll(pattern)].map((m) => [m.index, m[0]]);
}

/** The rules' patterns in parts, with one scanner over all of them, as src/audit/scan.ts builds them. */
const SPLIT = RULES.flatMap((r) => {
  const parts = r.pattern && !r.raw ? patternParts(r.pattern) : undefined;
  return parts ? [{ rule: r, parts }] : [];
});
const SCANNER = new NeedleScanner(
  RULES.flatMap((r) => (r.needles ?? []).flat()),
  SPLIT.flatMap(({ parts }) => parts as Part[]),
);

function inParts(parts: readonly Part[], text: string): [number, string][] {
  return [...partMatches(parts, text, SCANNER.scan(text))].map((m) => [m.index, m.text]);
}

/** Every text file under a folder. */
function textsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...textsUnder(path));
    else out.push(normalise(readFileSync(path, "utf8"), name).text);
  }
  return out;
}

const FIXTURES = join(import.meta.dir, "..", "fixtures");
const CORPUS = [...textsUnder(join(FIXTURES, "audit-variants")), ...textsUnder(join(FIXTURES, "public-skills"))];

/** A small deterministic generator (mulberry32): the same strings on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Texts stitched from the rule's own needles and anchors (in any case), words and punctuation. */
function stitched(parts: readonly Part[], seed: number, count: number): string[] {
  const words = [
    ...new Set(parts.flatMap((p) => [...(p.needles ?? []), ...(p.anchors ?? [])])),
    "the",
    "user",
    "curl",
    "https://x.example/a?d={{conversation}}",
    "~/.ssh/id_rsa",
    "env",
    "to",
    "all",
  ];
  const glue = [" ", " ", "  ", "\n", "/", ".", "$(", ")", '"', "'", "`", "|", "-", "=", "_", "x", "", ":", ",", "\t"];
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  return Array.from({ length: count }, () => {
    let text = "";
    const length = 3 + Math.floor(next() * 24);
    for (let i = 0; i < length; i++) {
      const word = pick(words);
      text +=
        (next() < 0.2 ? word.toUpperCase() : next() < 0.1 ? word[0]!.toUpperCase() + word.slice(1) : word) + pick(glue);
    }
    return text;
  });
}

describe("a pattern in parts returns exactly the whole pattern's matches", () => {
  test(`every split rule has parts (${SPLIT.length} rules)`, () => {
    expect(SPLIT.length).toBeGreaterThan(15);
  });

  for (const { rule, parts } of SPLIT)
    test(`${rule.id}: over its example, the variant corpus, the public skills and stitched texts`, () => {
      const texts = [
        normalise(rule.example, "SKILL.md").text,
        ...CORPUS,
        ...stitched(parts, rule.id.length * 7919, 400),
      ];
      let matched = 0;
      for (const text of texts) {
        const expected = whole(rule.pattern!, text);
        matched += expected.length;
        expect(inParts(parts, text)).toEqual(expected);
      }
      // The comparison means something only where the rule matches at all.
      expect(matched).toBeGreaterThan(0);
    }, 60_000);
});
