/**
 * Text → search terms, the same way for skills and for queries: code words survive (`c++`,
 * `node.js`), compounds split (`review-pr`, `getUserName`, `snake_case`) and are also kept whole
 * (`postmortem` finds `post-mortem`), common words go, and a light stemmer folds `tests`,
 * `testing`, `tested` into one term.
 */

/** Written forms that splitting on punctuation would destroy, and the term each becomes. */
const CODE_WORDS: readonly (readonly [RegExp, string])[] = [
  [/c\+\+/g, " cpp "],
  [/(^|[^a-z0-9])c#/g, "$1 csharp "],
  [/(^|[^a-z0-9])f#/g, "$1 fsharp "],
  [/(^|[^a-z0-9])\.net\b/g, "$1 dotnet "],
  [/\bnode\.js\b/g, " nodejs "],
  [/\bnext\.js\b/g, " nextjs "],
  [/\bvue\.js\b/g, " vuejs "],
];

/** Words that say nothing about what a skill does; dropped from skills and queries alike. */
const STOP_WORDS = new Set(
  (
    "a an and are as at be by can do does for from how i in into is it its me my of on or our please should so that the their them then this " +
    "to use used using via want was we what when where which who why will with you your"
  ).split(" "),
);

/**
 * A few suffixes, conservatively: enough that a query's inflection meets a description's, never
 * so much that unrelated words collide (a short word is left alone).
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  for (const suffix of ["ing", "ed"]) {
    if (w.endsWith(suffix) && /[aeiouy]/.test(w.slice(0, -suffix.length)) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      // debugging → debugg → debug; but keep "ll", "ss", "zz" (install, pass, buzz).
      if (/([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  // write / writing, merge / merging, change / changes meet at one stem.
  if (w.length > 4 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

/** Splits camelCase and PascalCase runs (`getHTTPServer` → `get HTTP Server`) before lower-casing. */
function splitCase(chunk: string): string {
  return chunk.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
}

/** What one whitespace-free chunk yields: its words' terms, and its compound joined (or undefined). */
interface ChunkTerms {
  words: readonly string[];
  joined: string | undefined;
}

/**
 * Chunks repeat across skills (the same words, the same names), so each is split and stemmed
 * once: an index of 10,000 skills reads ~170,000 chunks but only a few thousand distinct ones.
 * Bounded, so a stream of novel queries cannot grow it without limit.
 */
const chunkCache = new Map<string, ChunkTerms>();
const CHUNK_CACHE_LIMIT = 200_000;

function chunkTerms(chunk: string): ChunkTerms {
  let cached = chunkCache.get(chunk);
  if (cached !== undefined) return cached;
  let lower = /[a-z0-9][A-Z]|[A-Z]{2}[a-z]/.test(chunk) ? splitCase(chunk).toLowerCase() : chunk.toLowerCase();
  // Only a chunk with `+`, `#` or a dot inside a word can hold a code word.
  if (/[+#]|\.[a-z]/.test(lower))
    for (const [pattern, replacement] of CODE_WORDS) lower = lower.replace(pattern, replacement);
  const parts = lower.split(/[^a-z0-9]+/).filter((w) => w !== "");
  const words = parts.filter((w) => !STOP_WORDS.has(w)).map(stem);
  const joined = parts.length > 1 && parts.join("").length <= 40 ? stem(parts.join("")) : undefined;
  cached = { words, joined };
  if (chunkCache.size >= CHUNK_CACHE_LIMIT) chunkCache.clear();
  chunkCache.set(chunk, cached);
  return cached;
}

/**
 * The terms of a text, in order, stemmed, without stop words. Each compound chunk (`review-pr`,
 * `getUserName`) also yields its parts joined (`reviewpr`, `getusername`), so a query written
 * as one word or as several finds it.
 */
export function terms(text: string, options: { joined?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const chunk of text.split(/\s+/)) {
    if (chunk === "") continue;
    const { words, joined } = chunkTerms(chunk);
    for (const word of words) out.push(word);
    if (joined !== undefined && options.joined !== false) out.push(joined);
  }
  return out;
}

/** Posting lists being built, term → the docs it is in (in doc order) and its weight in each. */
export type GrowingPostings = Map<string, { docs: number[]; weights: number[] }>;

/** Adds `term`'s weight in `doc` to `postings`. */
export function addPosting(postings: GrowingPostings, term: string, doc: number, weight: number): void {
  let list = postings.get(term);
  if (!list) {
    list = { docs: [], weights: [] };
    postings.set(term, list);
  }
  list.docs.push(doc);
  list.weights.push(weight);
}
