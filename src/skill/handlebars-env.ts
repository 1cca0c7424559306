/**
 * One isolated Handlebars environment for every template, created on first use: most templates
 * are plain and never need it (see template-proof.ts and plain-template.ts), so loading the
 * package stays off the path to the first answer. Prompts are text, not HTML (`noEscape`); only
 * the built-in block helpers exist (`log` would write to stdout and `lookup` is not needed), and
 * `knownHelpersOnly` turns any other helper into a compile error.
 */
let environment: typeof Handlebars | undefined;

export function handlebars(): typeof Handlebars {
  if (!environment) {
    const module = require("handlebars") as typeof Handlebars;
    environment = module.create();
    environment.unregisterHelper("log");
    environment.unregisterHelper("lookup");
  }
  return environment;
}

export const BLOCK_HELPERS: ReadonlySet<string> = new Set(["if", "unless", "each", "with"]);

/**
 * `helperMissing` and `blockHelperMissing` are known to Handlebars' compiler by default, which
 * then calls them directly; its runtime, though, keeps them out of reach of templates (since
 * 4.6), so a template naming one (`{{#helperMissing}}…`) threw on every render. Unknown, they are
 * plain names like any other.
 */
export const COMPILE_OPTIONS: CompileOptions = {
  noEscape: true,
  strict: false,
  knownHelpersOnly: true,
  knownHelpers: { log: false, lookup: false, helperMissing: false, blockHelperMissing: false },
};

/** Blocks that render their body against a new context: names inside are not top-level inputs. */
export const CONTEXT_CHANGING_HELPERS: ReadonlySet<string> = new Set(["each", "with"]);
