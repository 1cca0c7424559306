import { COMPILE_OPTIONS, handlebars } from "./handlebars-env.ts";

/**
 * Compiling is the expensive part (~1 ms a template), so it happens on a template's first render
 * and never again. Keyed by text: identical templates in different skills (or in the old and new
 * registry after a reload) share one compiled function.
 */
const compiled = new Map<string, HandlebarsTemplateDelegate>();

export function renderTemplate(template: string, data: Record<string, unknown>): string {
  let fn = compiled.get(template);
  if (!fn) {
    fn = handlebars.compile(template, COMPILE_OPTIONS);
    compiled.set(template, fn);
  }
  // Arguments are plain data: prototype access stays off (Handlebars' default since 4.6).
  return fn(data).trimEnd();
}
