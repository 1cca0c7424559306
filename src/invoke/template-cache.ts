import { COMPILE_OPTIONS, handlebars } from "../skill/handlebars-env.ts";
import type { SkillContent } from "../skill/skill.ts";
import { compilePlain } from "./plain-template.ts";

type Renderer = (data: Record<string, unknown>) => string;

/**
 * Compiling is the expensive part (~1 ms a Handlebars template), so it happens on a template's
 * first render and never again; plain templates skip Handlebars altogether (plain-template.ts).
 * Keyed by the content object of one file version: when a reload (or the content cache) lets go
 * of that version, its renderer goes with it, so memory stays flat however often files change.
 */
const compiled = new WeakMap<SkillContent, Renderer>();

function compile(template: string): Renderer {
  let viaHandlebars: Renderer | undefined;
  const handlebarsRenderer = () => (viaHandlebars ??= handlebars().compile(template, COMPILE_OPTIONS));
  return compilePlain(template, handlebarsRenderer) ?? handlebarsRenderer();
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
