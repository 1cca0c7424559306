/** Each template compiled on its first render and never again, kept with its file version's content so memory stays flat. */
import { COMPILE_OPTIONS, handlebars } from "../skill/handlebars-env.ts";
import type { SkillContent } from "../skill/skill.ts";
import { renderBounded } from "./bounded-handlebars.ts";
import { compileBlocks } from "./block-template.ts";
import { compilePlain } from "./plain-template.ts";

type Renderer = (data: Record<string, unknown>) => string;

/**
 * Compiling is the expensive part (~1 ms a Handlebars template), so it happens on a template's
 * first render and never again; plain templates and those with only the built-in blocks skip
 * Handlebars altogether (plain-template.ts, block-template.ts).
 * Keyed by the content object of one file version: when a reload (or the content cache) lets go
 * of that version, its renderer goes with it, so memory stays flat however often files change.
 */
const compiled = new WeakMap<SkillContent, Renderer>();

/** A prototype with no string-named property: only what turns an object into a primitive. */
const PRIMITIVE_ONLY: object = Object.freeze(
  Object.create(null, { [Symbol.toPrimitive]: { value: () => "[object Object]" } }),
);

/**
 * Arguments arrive without a prototype (`ownArguments` in limits.ts), so no name reaches
 * Object.prototype. Handlebars converts contexts to primitives, though: it compares a block's
 * context with the one outside it (`{{../name}}` inside `{{#each}}`) and prints `{{this}}`, and
 * an object without a prototype cannot become one ("No default value", a -32603 for a valid
 * template). Its copy gets a prototype with nothing but `Symbol.toPrimitive`: lookups by name
 * still see only what was sent.
 */
function forHandlebars(data: Record<string, unknown>): Record<string, unknown> {
  if (Object.getPrototypeOf(data) !== null) return data;
  const copy = Object.create(PRIMITIVE_ONLY) as Record<string, unknown>;
  for (const key of Object.keys(data))
    Object.defineProperty(copy, key, { value: data[key], enumerable: true, writable: true, configurable: true });
  return copy;
}

function compile(template: string): Renderer {
  let viaHandlebars: Renderer | undefined;
  const handlebarsRenderer = (): Renderer => {
    if (!viaHandlebars) {
      const render = handlebars().compile(template, COMPILE_OPTIONS);
      viaHandlebars = (data) => renderBounded(render, forHandlebars(data));
    }
    return viaHandlebars;
  };
  return (
    compilePlain(template, handlebarsRenderer) ?? compileBlocks(template, handlebarsRenderer) ?? handlebarsRenderer()
  );
}

/** A skill's template rendered with `data`; trailing whitespace trimmed. A skill without one renders empty. */
export function renderTemplate(content: SkillContent, data: Record<string, unknown>): string {
  if (content.template === undefined) return "";
  let render = compiled.get(content);
  if (!render) {
    render = compile(content.template);
    compiled.set(content, render);
  }
  // Arguments are plain data: prototype access stays off (Handlebars' default since 4.6).
  return render(data).trimEnd();
}
