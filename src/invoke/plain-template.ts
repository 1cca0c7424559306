import { MUSTACHE, NOT_A_VARIABLE, TAG } from "../skill/template-proof.ts";
import { LIMITS, resultTooLarge } from "./limits.ts";

/** A template of text and plain `{{name}}` / `{{a.b}}` tags, split once into its pieces. */
type Piece = string | readonly string[];

export type PlainRenderer = (data: Readonly<Record<string, unknown>>) => string;

const hasOwn = (value: unknown, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

/** Handlebars' lookup with prototype access off: own properties only; a missing step is empty. */
function lookup(data: unknown, path: readonly string[]): unknown {
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
 * `undefined` render empty, anything else as JavaScript's string conversion does. Anything that
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
  return (data) => {
    let out = "";
    for (const piece of pieces) {
      if (typeof piece === "string") out += piece;
      else {
        const value = lookup(data, piece);
        // Handlebars calls a function value (a "lambda"); arguments from JSON never are one,
        // but data given through the public API might be.
        if (typeof value === "function") return handlebarsRenderer()(data);
        if (value !== null && value !== undefined) out += String(value);
      }
      // A template that repeats a large argument many times stops at the limit, not at memory's end.
      if (out.length > LIMITS.resultChars) throw resultTooLarge(out.length);
    }
    return out;
  };
}
