/** Handlebars with its `each` bounded: a template's nested blocks cannot multiply the work of one request. */
import { handlebars } from "../skill/handlebars-env.ts";
import { LIMITS, resultTooLarge, tooManyBlocks } from "./limits.ts";

type Render = (data: Record<string, unknown>) => string;
type BlockFn = (context: unknown, options?: unknown) => string;
interface EachOptions {
  fn: BlockFn;
  [key: string]: unknown;
}

/** The render in progress: how many block bodies it has rendered. */
let budget: { blocks: number } | undefined;
let installed = false;

/**
 * Handlebars renders a template's blocks without any limit: `{{#each a}}{{#each ../a}}…` over one
 * list of n items renders n², n³, … bodies (four levels over 100 numbers kept the server busy for
 * tens of seconds), and nothing is measured until the whole text exists. Our `each` counts every
 * body it renders against `LIMITS.renderBlocks`, and stops as soon as its own output (which ends
 * up inside the result) passes `LIMITS.resultChars`. Sections over a list (`{{#items}}…`) go
 * through `each` too.
 */
function install(): void {
  if (installed) return;
  installed = true;
  const env = handlebars();
  const each = env.helpers.each as (this: unknown, context: unknown, options: EachOptions) => string;
  env.registerHelper("each", function (this: unknown, context: unknown, options: EachOptions) {
    const fn = options.fn;
    let produced = 0;
    const counted: BlockFn = (item, itemOptions) => {
      if (budget !== undefined && ++budget.blocks > LIMITS.renderBlocks) throw tooManyBlocks();
      const text = fn(item, itemOptions);
      produced += text.length;
      if (produced > LIMITS.resultChars) throw resultTooLarge(produced);
      return text;
    };
    return each.call(this, context, { ...options, fn: counted });
  });
}

/**
 * Renders a compiled Handlebars template within the limits on work and size. A text longer than
 * the engine can hold (repeated `{{x}}` of a large `x`) surfaces as a RangeError: that is a
 * result far over the limit, and is reported as one.
 */
export function renderBounded(render: Render, data: Record<string, unknown>): string {
  install();
  budget = { blocks: 0 };
  try {
    return render(data);
  } catch (error) {
    if (error instanceof RangeError && /out of memory|string length/i.test(error.message)) throw resultTooLarge();
    throw error;
  } finally {
    budget = undefined;
  }
}
