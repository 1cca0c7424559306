import { COMPILE_OPTIONS, handlebars } from "../skill/handlebars-env.ts";
import { compilePlain } from "./plain-template.ts";

type Renderer = (data: Record<string, unknown>) => string;

/**
 * Compiling is the expensive part (~1 ms a Handlebars template), so it happens on a template's
 * first render and never again; plain templates skip Handlebars altogether (plain-template.ts).
 * Keyed by text: identical templates in different skills (or in the old and new registry after
 * a reload) share one renderer.
 */
const compiled = new Map<string, Renderer>();

export function renderTemplate(template: string, data: Record<string, unknown>): string {
  let render = compiled.get(template);
  if (!render) {
    let viaHandlebars: Renderer | undefined;
    const handlebarsRenderer = () => (viaHandlebars ??= handlebars().compile(template, COMPILE_OPTIONS));
    render = compilePlain(template, handlebarsRenderer) ?? handlebarsRenderer();
    compiled.set(template, render);
  }
  // Arguments are plain data: prototype access stays off (Handlebars' default since 4.6).
  return render(data).trimEnd();
}
