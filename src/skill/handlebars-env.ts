import Handlebars from "handlebars";

/**
 * One isolated Handlebars environment for every template. Prompts are text, not HTML
 * (`noEscape`); only the built-in block helpers exist (`log` would write to stdout and
 * `lookup` is not needed), and `knownHelpersOnly` turns any other helper into a compile error.
 */
export const handlebars = Handlebars.create();
handlebars.unregisterHelper("log");
handlebars.unregisterHelper("lookup");

export const BLOCK_HELPERS: ReadonlySet<string> = new Set(["if", "unless", "each", "with"]);

export const COMPILE_OPTIONS: CompileOptions = {
  noEscape: true,
  strict: false,
  knownHelpersOnly: true,
  knownHelpers: { log: false, lookup: false },
};

/** Blocks that render their body against a new context: names inside are not top-level inputs. */
export const CONTEXT_CHANGING_HELPERS: ReadonlySet<string> = new Set(["each", "with"]);
