/*
 * Templates with the built-in blocks — `{{#if x}}`, `{{#unless x}}`, `{{#each xs}}` (each with an
 * optional `{{else}}`), and inside `#each` `{{this}}` and `{{@index}}`, `{{@key}}`, `{{@first}}`,
 * `{{@last}}` — are most of the templates that are not plain. Handlebars renders them through
 * a generic runtime that costs a call several times what the rest of a `tools/call` costs
 * (measured with client and server on one core: 1.00× the floor's throughput with Handlebars,
 * 1.14× with the render left out) and a compile of ~1 ms on first use. This module renders
 * them directly, with Handlebars' semantics for our options (`noEscape`, no prototype access):
 * the same truthiness for `if` and `unless`, the same iteration for `each`, and the same
 * removal of "standalone" block tags (a tag alone on its line takes its line with it), ported
 * from Handlebars' whitespace-control pass. Anything else returns undefined and goes to
 * Handlebars; test/unit/block-template.test.ts compares the two on generated templates.
 */
import { CLOSE_BLOCK, DATA, ELSE, MUSTACHE, NOT_A_VARIABLE, OPEN_BLOCK, TAG } from "../skill/template-proof.ts";
import { LIMITS, tooManyBlocks } from "./limits.ts";
import { join, lookup as lookupPath, orEmpty, type PlainRenderer } from "./plain-template.ts";

interface Content {
  kind: "content";
  /** The text as written: standalone detection looks at this, never at what was stripped. */
  original: string;
  value: string;
  leftStripped: boolean;
  rightStripped: boolean;
}
interface Variable {
  kind: "variable";
  /** A path from the current context; empty for `{{this}}`. */
  path: readonly string[];
}
interface DataVariable {
  kind: "data";
  name: "index" | "key" | "first" | "last";
}
interface Block {
  kind: "block";
  helper: "if" | "unless" | "each";
  path: readonly string[];
  program: Node[];
  inverse: Node[] | undefined;
}
type Node = Content | Variable | DataVariable | Block;

/** Where `each` is in its iteration (Handlebars' data frame). */
interface Frame {
  index: number;
  key: string | number;
  first: boolean;
  last: boolean;
}

/** Handlebars' `container.nullContext`. */
const NULL_CONTEXT: object = Object.seal({});

/** Thrown when the data holds a function: Handlebars calls it, so Handlebars renders. */
const LAMBDA = Symbol("lambda");

/** Handlebars' lookup (plain-template.ts); a function found is Handlebars' to call. */
function lookup(context: unknown, path: readonly string[]): unknown {
  const value = lookupPath(context, path);
  if (typeof value === "function") throw LAMBDA;
  return value;
}

/** Handlebars' `Utils.isEmpty`, with the `if` helper's falsiness (no `includeZero`). */
function truthy(value: unknown): boolean {
  if (!value) return false;
  return !(Array.isArray(value) && value.length === 0);
}

function parse(template: string): Node[] | undefined {
  if (template.includes("\\{{") || template.includes("{{{") || template.includes("}}}")) return undefined;
  const root: Node[] = [];
  /** Open blocks, innermost last, with the body tags currently go into. */
  const stack: { block: Block; body: Node[] }[] = [];
  let body = root;
  let last = 0;
  let tags = 0;
  const text = (end: number) => {
    const value = template.slice(last, end);
    if (value !== "") body.push({ kind: "content", original: value, value, leftStripped: false, rightStripped: false });
  };
  for (const match of template.matchAll(TAG)) {
    const inner = match[1]!;
    text(match.index);
    last = match.index + match[0].length;
    tags++;
    const insideEach = stack.some((s) => s.block.helper === "each");
    const path = MUSTACHE.exec(inner)?.[1];
    const open = OPEN_BLOCK.exec(inner);
    if (ELSE.test(inner)) {
      const top = stack.at(-1);
      if (!top || top.block.inverse) return undefined;
      top.block.inverse = [];
      body = top.block.inverse;
    } else if (path !== undefined) {
      const segments = path.split(".");
      if (segments.length === 1 && segments[0] === "this") {
        // `{{this}}` outside `each` is the arguments object itself: Handlebars' business.
        if (!insideEach) return undefined;
        body.push({ kind: "variable", path: [] });
        continue;
      }
      if (segments.some((segment) => NOT_A_VARIABLE.has(segment))) return undefined;
      body.push({ kind: "variable", path: segments });
    } else if (DATA.test(inner)) {
      if (!insideEach) return undefined;
      body.push({ kind: "data", name: inner.trim().slice(1) as DataVariable["name"] });
    } else if (open) {
      const helper = open[1]!;
      if (helper !== "if" && helper !== "unless" && helper !== "each") return undefined;
      // `{{#if this}}` inside `each` tests the item; outside, `this` is the arguments object.
      const segments = open[2] === "this" && insideEach ? [] : open[2]!.split(".");
      if (segments.some((segment) => NOT_A_VARIABLE.has(segment))) return undefined;
      const block: Block = { kind: "block", helper, path: segments, program: [], inverse: undefined };
      body.push(block);
      stack.push({ block, body });
      body = block.program;
    } else {
      const close = CLOSE_BLOCK.exec(inner);
      const top = stack.pop();
      if (!close || !top || close[1] !== top.block.helper) return undefined;
      body = top.body;
    }
  }
  // An odd `{{` (unclosed, or inside a tag) is for Handlebars to judge, as are unclosed blocks.
  if (template.split("{{").length - 1 !== tags || stack.length > 0) return undefined;
  text(template.length);
  return root;
}

// Handlebars' whitespace control (compiler/whitespace-control.js), for templates without `~`,
// comments or partials: the only statements that can be standalone are block tags.

function isPrevWhitespace(body: Node[], i: number | undefined, isRoot = false): boolean {
  const at = i ?? body.length;
  const prev = body[at - 1];
  const sibling = body[at - 2];
  if (!prev) return isRoot;
  if (prev.kind !== "content") return false;
  return (sibling || !isRoot ? /\r?\n\s*?$/ : /(^|\r?\n)\s*?$/).test(prev.original);
}

function isNextWhitespace(body: Node[], i: number | undefined, isRoot = false): boolean {
  const at = i ?? -1;
  const next = body[at + 1];
  const sibling = body[at + 2];
  if (!next) return isRoot;
  if (next.kind !== "content") return false;
  return (sibling || !isRoot ? /^\s*?\r?\n/ : /^\s*?(\r?\n|$)/).test(next.original);
}

function omitRight(body: Node[], i?: number): void {
  const current = body[i === undefined ? 0 : i + 1];
  if (current?.kind !== "content" || current.rightStripped) return;
  const original = current.value;
  current.value = current.value.replace(/^[ \t]*\r?\n?/, "");
  current.rightStripped = current.value !== original;
}

function omitLeft(body: Node[], i?: number): void {
  const current = body[i === undefined ? body.length - 1 : i - 1];
  if (current?.kind !== "content" || current.leftStripped) return;
  const original = current.value;
  current.value = current.value.replace(/[ \t]+$/, "");
  current.leftStripped = current.value !== original;
}

/** The `Program` visitor: each block's children first, then whether its tags stand alone. */
function stripProgram(body: Node[], isRoot: boolean): void {
  for (let i = 0; i < body.length; i++) {
    const current = body[i]!;
    if (current.kind !== "block") continue;
    const strip = stripBlock(current);
    if (strip.openStandalone && isPrevWhitespace(body, i, isRoot)) {
      omitRight(current.program);
      omitLeft(body, i);
    }
    if (strip.closeStandalone && isNextWhitespace(body, i, isRoot)) {
      omitRight(body, i);
      omitLeft(current.inverse ?? current.program);
    }
  }
}

/** The `BlockStatement` visitor: a standalone `{{else}}`, and whether the open and close tags may be. */
function stripBlock(block: Block): { openStandalone: boolean; closeStandalone: boolean } {
  stripProgram(block.program, false);
  if (block.inverse) stripProgram(block.inverse, false);
  const strip = {
    openStandalone: isNextWhitespace(block.program, undefined),
    closeStandalone: isPrevWhitespace(block.inverse ?? block.program, undefined),
  };
  if (block.inverse && isPrevWhitespace(block.program, undefined) && isNextWhitespace(block.inverse, undefined)) {
    omitLeft(block.program);
    omitRight(block.inverse);
  }
  return strip;
}

/** The block bodies one render has rendered, bounded like Handlebars' `each` (bounded-handlebars.ts). */
class Budget {
  blocks = 0;

  body(): void {
    if (++this.blocks > LIMITS.renderBlocks) throw tooManyBlocks();
  }
}

/** A program's value: undefined when it has no pieces (Handlebars returns "" then). */
function render(body: readonly Node[], context: unknown, frame: Frame | undefined, budget: Budget): unknown {
  let total: unknown;
  for (const node of body) {
    switch (node.kind) {
      case "content":
        // Emptied by whitespace control, content is not emitted at all (it would make the sum a string).
        if (node.value !== "") total = join(total, node.value);
        break;
      case "variable":
        total = join(total, orEmpty(node.path.length === 0 ? checked(context) : lookup(context, node.path)));
        break;
      case "data":
        total = join(total, orEmpty(frame![node.name]));
        break;
      case "block": {
        const value = lookup(context, node.path);
        // A block called where the context is null or undefined gets an empty object as `this`.
        const self = context ?? NULL_CONTEXT;
        if (node.helper === "each") total = join(total, renderEach(node, value, self, frame, budget));
        else {
          const chosen = truthy(value) === (node.helper === "if") ? node.program : node.inverse;
          total = join(total, chosen ? orEmpty(render(chosen, self, frame, budget) ?? "") : "");
        }
        break;
      }
    }
  }
  return total;
}

/** `{{this}}`: a function is Handlebars' to call. */
function checked(value: unknown): unknown {
  if (typeof value === "function") throw LAMBDA;
  return value;
}

/** Handlebars' `each`: arrays by index, other objects by `Object.keys`, joined into a string; nothing to iterate renders `{{else}}`. */
function renderEach(block: Block, value: unknown, context: unknown, frame: Frame | undefined, budget: Budget): unknown {
  let text = "";
  let count = 0;
  const add = (piece: unknown) => {
    text = join(text, orEmpty(piece ?? "")) as string;
  };
  if (value !== null && typeof value === "object") {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++, count++) {
        if (!(i in value)) continue;
        budget.body();
        add(
          render(block.program, value[i], { index: i, key: i, first: i === 0, last: i === value.length - 1 }, budget),
        );
      }
    } else {
      // Maps, Sets and other iterables (possible through the API, never from JSON) are Handlebars'.
      if (Symbol.iterator in value) throw LAMBDA;
      const keys = Object.keys(value);
      for (const key of keys) {
        budget.body();
        add(
          render(
            block.program,
            (value as Record<string, unknown>)[key],
            { index: count, key, first: count === 0, last: count === keys.length - 1 },
            budget,
          ),
        );
        count++;
      }
    }
  }
  if (count === 0) return block.inverse ? orEmpty(render(block.inverse, context, frame, budget) ?? "") : "";
  return text;
}

/**
 * A renderer for a template made of text, plain placeholders and the built-in blocks, or
 * undefined when it has anything else. Data holding a function (or an iterable to `each` over)
 * is rendered by Handlebars, which calls it.
 */
export function compileBlocks(template: string, handlebarsRenderer: () => PlainRenderer): PlainRenderer | undefined {
  const root = parse(template);
  if (!root) return undefined;
  stripProgram(root, true);
  return (data) => {
    let value: unknown;
    try {
      value = render(root, data, undefined, new Budget());
    } catch (error) {
      if (error === LAMBDA) return handlebarsRenderer()(data);
      throw error;
    }
    return value === undefined ? "" : String(value);
  };
}
