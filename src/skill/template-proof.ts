/**
 * A prompt's template proved at load without compiling it when it uses only plain tags (most do),
 * so Handlebars' parser runs only for the rest.
 */
import type { SourcePosition } from "../diagnostics.ts";
import { BLOCK_HELPERS, CONTEXT_CHANGING_HELPERS, handlebars } from "./handlebars-env.ts";
import { explainTemplateError, grammarInWords, type Place } from "./template-errors.ts";

type AstNode = hbs.AST.Node;

/** What the load step learns from a template without compiling it. */
export type TemplateProof =
  | { ok: true; variables: string[] }
  | { ok: false; message: string; hint?: string; position?: SourcePosition };

/**
 * Most templates use only plain mustaches (`{{name}}`, `{{a.b}}`) and the built-in blocks with
 * one simple argument (`{{#if x}}…{{else}}…{{/if}}`, `{{#each items}}{{this}}{{/each}}`).
 * Such a template always compiles, so a tag-by-tag check proves it without Handlebars' parser
 * (~150 µs a template). Any other construct — helpers, partials, comments, escapes, `~`, `../`,
 * triple-stash — returns undefined and goes through the real parser.
 */
export const TAG = /\{\{([^{}]*)\}\}/g;
const PATH = "[A-Za-z_$][\\w$-]*(?:\\.[A-Za-z_$][\\w$-]*)*";
export const MUSTACHE = new RegExp(`^\\s*(${PATH})\\s*$`);
export const DATA = /^\s*@(?:index|key|first|last)\s*$/;
export const OPEN_BLOCK = new RegExp(`^#(if|unless|each|with) +(${PATH})\\s*$`);
export const CLOSE_BLOCK = /^\/(if|unless|each|with)\s*$/;
export const ELSE = /^\s*else\s*$/;
export const NOT_A_VARIABLE = new Set(["this", "else", "true", "false", "null", "undefined", ...BLOCK_HELPERS]);

function countOpens(template: string): number {
  let count = 0;
  for (let i = template.indexOf("{{"); i >= 0; i = template.indexOf("{{", i + 2)) count++;
  return count;
}

function fastProof(template: string): TemplateProof | undefined {
  // Escapes and braces run into a tag (`{{{`, `}}}`) change how Handlebars tokenises.
  if (template.includes("\\{{") || template.includes("{{{") || template.includes("}}}")) return undefined;
  const opens = countOpens(template);
  if (opens === 0) return { ok: true, variables: [] };
  const variables = new Set<string>();
  const blocks: { name: string; sawElse: boolean }[] = [];
  let depth = 0;
  let tags = 0;
  const note = (path: string): boolean => {
    const [head, ...tail] = path.split(".");
    // Keywords are not property names: `a.this` or `a.true` do not parse.
    if (tail.some((segment) => NOT_A_VARIABLE.has(segment))) return false;
    const name = head === "this" ? tail[0] : head;
    if (name === undefined) return true;
    if (NOT_A_VARIABLE.has(name)) return false;
    if (depth === 0) variables.add(name);
    return true;
  };
  for (const match of template.matchAll(TAG)) {
    tags++;
    const inner = match[1]!;
    if (ELSE.test(inner)) {
      const top = blocks[blocks.length - 1];
      if (!top || top.sawElse) return undefined;
      top.sawElse = true;
      // The else branch of #each / #with renders against the outer context.
      if (CONTEXT_CHANGING_HELPERS.has(top.name)) depth--;
      continue;
    }
    const mustache = MUSTACHE.exec(inner);
    if (mustache) {
      if (!note(mustache[1]!)) return undefined;
      continue;
    }
    if (DATA.test(inner)) continue;
    const open = OPEN_BLOCK.exec(inner);
    if (open) {
      if (!note(open[2]!)) return undefined;
      blocks.push({ name: open[1]!, sawElse: false });
      if (CONTEXT_CHANGING_HELPERS.has(open[1]!)) depth++;
      continue;
    }
    const close = CLOSE_BLOCK.exec(inner);
    if (!close) return undefined;
    const top = blocks.pop();
    if (!top || top.name !== close[1]) return undefined;
    if (CONTEXT_CHANGING_HELPERS.has(top.name) && !top.sawElse) depth--;
  }
  // Every `{{` must be one of the tags above; `{{{` or a stray `{{` would not have matched.
  if (tags !== opens || blocks.length > 0) return undefined;
  return { ok: true, variables: [...variables] };
}

interface Walk {
  variables: Set<string>;
  /** How many context-changing blocks enclose the current node. */
  depth: number;
}

class TemplateRejection extends Error {
  constructor(
    message: string,
    readonly hint: string | undefined,
    readonly position?: SourcePosition,
  ) {
    super(message);
  }
}

const ONLY_BLOCKS = "only #if, #unless, #each and #with exist; put the text itself in the template";

function at(node: AstNode): SourcePosition | undefined {
  const start = node.loc?.start;
  return start ? { line: start.line, column: start.column + 1 } : undefined;
}

function notePath(path: hbs.AST.PathExpression, walk: Walk): void {
  if (path.data) {
    if (path.parts[0] === "root" && path.parts[1]) walk.variables.add(path.parts[1]);
    return;
  }
  if (walk.depth - path.depth === 0 && path.parts[0]) walk.variables.add(path.parts[0]);
}

function visitExpression(node: hbs.AST.Expression, walk: Walk): void {
  if (node.type === "PathExpression") notePath(node as hbs.AST.PathExpression, walk);
  else if (node.type === "SubExpression") {
    const sub = node as hbs.AST.SubExpression;
    throw new TemplateRejection(`unknown helper "${describePath(sub.path)}"`, ONLY_BLOCKS, at(sub));
  }
}

function describePath(path: hbs.AST.Expression): string {
  return path.type === "PathExpression" ? (path as hbs.AST.PathExpression).original : path.type;
}

function visitCall(node: hbs.AST.MustacheStatement | hbs.AST.BlockStatement, walk: Walk, isBlock: boolean): void {
  const name = describePath(node.path);
  const hasArguments = node.params.length > 0 || (node.hash?.pairs.length ?? 0) > 0;
  if (isBlock && BLOCK_HELPERS.has(name)) {
    if (node.params.length !== 1 || (node.hash?.pairs.length ?? 0) > 0) {
      throw new TemplateRejection(
        `{{#${name}}} takes exactly one argument`,
        `e.g. {{#${name} name}}…{{/${name}}}`,
        at(node),
      );
    }
  } else if (hasArguments || BLOCK_HELPERS.has(name)) {
    const hint = BLOCK_HELPERS.has(name) ? `write it as a block: {{#${name} …}}…{{/${name}}}` : ONLY_BLOCKS;
    throw new TemplateRejection(`unknown helper "${name}"`, hint, at(node));
  }
  for (const param of node.params) visitExpression(param, walk);
  // A parameterless block is a mustache section: it reads its own name from the outer context.
  if (!hasArguments) visitExpression(node.path, walk);
}

function visit(node: AstNode, walk: Walk): void {
  switch (node.type) {
    case "Program":
      for (const child of (node as hbs.AST.Program).body) visit(child, walk);
      return;
    case "ContentStatement":
    case "CommentStatement":
      return;
    case "MustacheStatement":
      visitCall(node as hbs.AST.MustacheStatement, walk, false);
      return;
    case "BlockStatement": {
      const block = node as hbs.AST.BlockStatement;
      visitCall(block, walk, true);
      const name = describePath(block.path);
      const changesContext = CONTEXT_CHANGING_HELPERS.has(name) || !BLOCK_HELPERS.has(name);
      if (changesContext) walk.depth++;
      if (block.program) visit(block.program, walk);
      if (changesContext) walk.depth--;
      if (block.inverse) visit(block.inverse, walk);
      return;
    }
    case "PartialStatement":
    case "PartialBlockStatement":
      throw new TemplateRejection(
        "partials ({{> name}}) are not supported",
        "write the text into this skill: skills are self-contained",
        at(node),
      );
    default:
      throw new TemplateRejection(`unsupported template construct (${node.type})`, undefined, at(node));
  }
}

/**
 * Why Handlebars refused the template, in words: the tag scan's finding (template-errors.ts), or
 * else the grammar's expectation, at the line Handlebars names and the column its excerpt shows.
 */
function parseFailure(
  template: string,
  message: string,
  place?: Place,
): { message: string; hint: string; position?: SourcePosition } {
  const explained = explainTemplateError(template, place);
  if (explained) return { ...explained, message: `template does not parse: ${explained.message}` };
  const expected = /\n(Expecting [^\n]*)$/.exec(message)?.[1];
  const line = Number(/on line (\d+)/.exec(message)?.[1] ?? 0);
  const [, excerpt = "", caret = ""] = message.split("\n");
  const before = excerpt.slice(0, Math.max(0, caret.length - 1)).replace(/^\.\.\./, "");
  const text = template.split("\n")[line - 1] ?? "";
  const index = before === "" ? 0 : text.lastIndexOf(before);
  const position = line > 0 ? { line, column: index < 0 ? 1 : index + before.length + 1 } : undefined;
  const what = expected ? grammarInWords(expected) : firstLine(message);
  return {
    message: `template does not parse: ${what}`,
    hint: 'check the tag here; a literal "{{" is written \\{{',
    ...(position && { position }),
  };
}

function firstLine(message: string): string {
  return message.replace(/ - \d+:\d+$/, "").split("\n")[0]!;
}

/**
 * Proves a template can only fail by being given odd data, never by its own text: it parses,
 * uses no helper but the built-in blocks, and no partials. Also lists the top-level variables it
 * reads, for prompts that declare no arguments. `place` maps a position in the template to the
 * file, for a message that names a second place (where a mismatched block was opened).
 */
export function proveTemplate(template: string, place?: Place): TemplateProof {
  const fast = fastProof(template);
  if (fast) return fast;
  let ast: hbs.AST.Program;
  try {
    ast = handlebars().parse(template);
  } catch (error) {
    return { ok: false, ...parseFailure(template, error instanceof Error ? error.message : String(error), place) };
  }
  const walk: Walk = { variables: new Set(), depth: 0 };
  try {
    visit(ast, walk);
  } catch (error) {
    if (error instanceof TemplateRejection)
      return {
        ok: false,
        message: error.message,
        ...(error.hint !== undefined && { hint: error.hint }),
        ...(error.position && { position: error.position }),
      };
    throw error;
  }
  return { ok: true, variables: [...walk.variables] };
}
