import { join } from "node:path";

/**
 * Where the built-in skills live: beside `src/` in a checkout or an installed package, and at the
 * root of the embedded file system inside a compiled binary (`bun build --compile --asset`).
 */
export function builtinSkillsDir(): string {
  const here = import.meta.dir;
  const compiled = here.startsWith("/$bunfs") || /^[A-Z]:[\\/]~BUN/i.test(here);
  return compiled ? join(here, "skills") : join(here, "..", "..", "skills");
}

export const BUILTIN_LAYER_NAME = "builtin";
export const BUILTIN_PRIORITY = 0;
