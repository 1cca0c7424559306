/** Prompts of text and plain `{{name}}` tags rendered without a Handlebars program, exactly as Handlebars renders them. */
import { MUSTACHE, NOT_A_VARIABLE, TAG } from "../skill/template-proof.ts";
import { LIMITS, resultTooLarge } from "./limits.ts";

/** A template of text and plain `{{name}}` / `{{a.b}}` tags, split once into its pieces. */
type Piece = string | readonly string[];

export type PlainRenderer = (data: Readonly<Record<string, unknown>>) => string;

const hasOwn = (value: unknown, key: string): boolean => Object.hasOwn(value as object, key);

/** Handlebars' lookup with prototype access off: own properties only; a missing step is empty. */
export function lookup(data: unknown, path: readonly string[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || value === undefined) return value;
    value = hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/**
 * Most prompts are text with plain placeholders. Rendering them needs no Handlebars program:
 * compiling one costs ~1 ms and keeps a generated function alive per template (a composition of
 * 700 skills held ~40 MB of them). This renders exactly what Handlebars renders with our options
 * (`noEscape`, no prototype access): a value is looked up by own properties, `null` and
 * `undefined` render empty, anything else joins the text with JavaScript's `+` (see `join`). Anything that
 * is not plain — blocks, `this`, `@data`, comments, escapes, whitespace control, triple-stash —
 * returns undefined and goes to Handlebars (as does data with a function in it, through
 * `handlebarsRenderer`). test/unit/plain-template.test.ts compares the two.
 */
export function compilePlain(template: string, handlebarsRenderer: () => PlainRenderer): PlainRenderer | undefined {
  if (template.includes("\\{{") || template.includes("{{{") || template.includes("}}}")) return undefined;
  const pieces: Piece[] = [];
  let last = 0;
  let tags = 0;
  for (const match of template.matchAll(TAG)) {
    const path = MUSTACHE.exec(match[1]!)?.[1];
    if (path === undefined) return undefined;
    const segments = path.split(".");
    if (segments.some((segment) => NOT_A_VARIABLE.has(segment))) return undefined;
    pieces.push(template.slice(last, match.index), segments);
    last = match.index + match[0].length;
    tags++;
  }
  // A `{{` outside the tags above (an unclosed or odd tag) is for Handlebars to judge.
  if (template.split("{{").length - 1 !== tags) return undefined;
  pieces.push(template.slice(last));
  // Handlebars emits no empty text: `{{a}}{{b}}` is two values added, not "" + a + b (see `join`).
  const parts = pieces.filter((piece) => piece !== "");
  return (data) => {
    let total: unknown;
    for (const piece of parts) {
      if (typeof piece === "string") total = join(total, piece);
      else {
        const value = lookup(data, piece);
        // Handlebars calls a function value (a "lambda"); arguments from JSON never are one,
        // but data given through the public API might be.
        if (typeof value === "function") return handlebarsRenderer()(data);
        total = join(total, orEmpty(value));
      }
    }
    return total === undefined ? "" : String(total);
  };
}

/**
 * Joins a template's pieces as Handlebars' compiled code does: `return a + b + c`, with no
 * leading `""`, so a template (or a block's body) that starts with two numbers or booleans adds
 * them (`{{a}}{{b}}` with 1 and 2 renders "3"); once a string joins, it is concatenation.
 */
export function join(total: unknown, piece: unknown): unknown {
  if (total === undefined) return piece;
  // JavaScript's `+` on whatever the values are, exactly as the compiled template applies it.
  const sum: unknown = (total as number) + (piece as number);
  // A template that repeats a large argument many times stops at the limit, not at memory's end.
  if (typeof sum === "string" && sum.length > LIMITS.resultChars) throw resultTooLarge(sum.length);
  return sum;
}

/** What a mustache adds: its value itself (not its string), or "" for null and undefined. */
export const orEmpty = (value: unknown): unknown => (value === null || value === undefined ? "" : value);
