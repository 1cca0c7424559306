/**
 * The one way a config block is declared and read. Each block is a JSON Schema written once (in
 * TypeBox's `typebox/schema` dialect, `as const`), its TypeScript type derived from it with
 * `BlockOf<typeof Schema>`, and `readBlock` checks a value against it with TypeBox and keeps what
 * is valid: a wrong optional key or list entry is dropped, a wrong required key drops the mapping
 * that holds it, an unknown key (`additionalProperties: false`) is dropped; each drop is one
 * ConfigProblem placed at its key (config-problem.ts). What a schema cannot say (a ref's syntax,
 * a duration, two keys that exclude each other, turning a path absolute) the block's reader does
 * after, on a value that already has the block's type.
 *
 * Schemas carry their own words, as keywords TypeBox ignores:
 * - `errorMessage`: what a value here must be ("must be a whole number of days from 1 to 36500");
 * - `hint`: how to fix it;
 * - `noun`: what a mapping or list entry is called when it is dropped ("layer");
 * - `dropSeverity`: `error` when dropping this mapping loses something (a layer fails `validate`);
 * - `consequence`: what dropping this value means, said after its problem instead of `ignored`
 *   ("mcp --http will not start with it": a sign-in setting the server refuses rather than drops);
 * - `dropsMapping`: a value here that is not valid as a whole drops the mapping holding it, as a wrong
 *   required key does, though the key may be left out (a layer's `signers`: a layer is never served
 *   unverified).
 *
 * A block's root schema has an `$id`: script/config-checks.ts builds each one ahead of time into
 * a plain function with TypeBox's own `Build` (config-checks.generated.ts), so a valid block costs
 * one call and TypeBox's schema module loads only when a block has something wrong to report.
 */
import type SchemaModule from "typebox/schema";
import type { XStatic } from "typebox/schema";
import { closest } from "../suggest.ts";
import { CONFIG_CHECKS } from "./config-checks.generated.ts";
import type { ConfigPath, ReportProblem } from "./config-problem.ts";

/**
 * Text with something in it besides spaces: "contains a non-space". Every reader of such a value
 * trims it (a path, a URL, an id) or needs words in it (an allow entry's `reason`), so `"   "` must
 * be refused as `""` is; JSON Schema has no trim, and `minLength: 1` would take `"   "`. Where
 * any string but `""` will do, write `minLength: 1` (the checks built ahead of time carry its
 * code-point count: script/config-checks.ts).
 */
export const NON_BLANK = { type: "string", pattern: "\\S" } as const;

/** The type a block's schema describes. */
export type BlockOf<Schema> = XStatic<Schema>;

/** The keywords a schema node may have that matter here (TypeBox reads the rest). */
interface SchemaNode {
  type?: string | readonly string[];
  properties?: Readonly<Record<string, unknown>>;
  required?: readonly string[];
  additionalProperties?: unknown;
  items?: unknown;
  anyOf?: readonly unknown[];
  errorMessage?: string;
  hint?: string;
  noun?: string;
  dropSeverity?: "warning" | "error";
  consequence?: string;
  dropsMapping?: boolean;
}

export interface ReadBlockOptions {
  /** How a problem names its key (default: `"usage.keepDays"`, `"audit.allow" entry 2`). */
  subject?: (path: ConfigPath) => string;
  /** The block's own key, the first word of the default subject. */
  key?: string;
  /**
   * What the block is, said first in each message (`layer "team"`): `layer "team": "ref" must …`,
   * `layer "team": unknown key "branch" …`, and alone for the block as a whole.
   */
  within?: string;
}

/** A block's schema: its `$id` names the check built ahead of time for it (config-checks.generated.ts). */
export interface BlockSchema {
  readonly $id: string;
}

let schemaModule: typeof SchemaModule | undefined;
/** TypeBox's own check, for a block the generated checks refused (or do not have yet) and the parts of one. */
function check(schema: unknown, value: unknown): boolean {
  schemaModule ??= (require("typebox/schema") as { default: typeof SchemaModule }).default;
  return schemaModule.Check(schema as SchemaModule.XSchema, value);
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The default subject: the keys joined with dots, list positions as `entry N`. */
export function defaultSubject(key: string | undefined, path: ConfigPath): string {
  let text = "";
  let keys: string[] = key === undefined ? [] : [key];
  const flush = () => {
    if (keys.length > 0) text += `${text === "" ? "" : " "}"${keys.join(".")}"`;
    keys = [];
  };
  for (const part of path) {
    if (typeof part === "number") {
      flush();
      text += `${text === "" ? "entry" : " entry"} ${part + 1}`;
    } else keys.push(part);
  }
  flush();
  return text;
}

/**
 * Whether `schema` declares the value at `path` (a key of one of its mappings, an entry of one of
 * its lists): a problem `readBlock` reports at a path it does not declare is an unknown key's.
 */
export function declares(schema: unknown, path: ConfigPath): boolean {
  let nodes = [schema as SchemaNode];
  for (const part of path) {
    nodes = nodes
      .flatMap((node) => [node, ...((node.anyOf ?? []) as SchemaNode[])])
      .flatMap((node) => {
        const next =
          typeof part === "number"
            ? node.items
            : (node.properties?.[part] ??
              (isMapping(node.additionalProperties) ? node.additionalProperties : undefined));
        return next === undefined ? [] : [next as SchemaNode];
      });
  }
  return nodes.length > 0;
}

/** What happens when a value is dropped, said after its problem. */
interface Consequence {
  text: string;
  severity: "warning" | "error";
}

/** Dropping a value of this node (or the block itself): an error where its `dropSeverity` says so. */
const dropOf = (node: SchemaNode): Consequence => ({ text: "ignored", severity: node.dropSeverity ?? "warning" });

/**
 * `value` checked against `schema`: what is valid of it, or undefined when the whole block is
 * ignored. Every part left out is reported once, at its path.
 */
export function readBlock<const Schema extends BlockSchema>(
  schema: Schema,
  value: unknown,
  report: ReportProblem,
  options: ReadBlockOptions = {},
): BlockOf<Schema> | undefined {
  const built = (CONFIG_CHECKS as Readonly<Record<string, (value: unknown) => boolean>>)[schema.$id];
  if (built !== undefined ? built(value) : check(schema, value)) return value as BlockOf<Schema>;
  const named = (path: ConfigPath) => defaultSubject(options.key, path);
  const { within } = options;
  const subject =
    options.subject ??
    (within === undefined ? named : (path: ConfigPath) => (path.length === 0 ? within : `${within}: ${named(path)}`));
  const unknown =
    options.subject === undefined && within !== undefined
      ? (path: ConfigPath) => `${within}: unknown key ${named(path)}`
      : (path: ConfigPath) => `unknown key ${subject(path)}`;
  const kept = prune(schema as SchemaNode, value, [], dropOf(schema as SchemaNode), { subject, unknown, report });
  return kept.keep ? (kept.value as BlockOf<Schema>) : undefined;
}

interface Walk {
  subject: (path: ConfigPath) => string;
  /** `unknown key "usage.stor"`, `layer "team": unknown key "branch"`. */
  unknown: (path: ConfigPath) => string;
  report: ReportProblem;
}

type Kept = { keep: true; value: unknown } | { keep: false };

function prune(node: SchemaNode, value: unknown, path: ConfigPath, drop: Consequence, walk: Walk): Kept {
  if (check(node, value)) return { keep: true, value };
  // A schema with branches (`off`, or a mapping): the branch of the value's own type says what is wrong inside it.
  const branch = node.anyOf?.filter((b) => typeOf(b as SchemaNode).has(jsonType(value)));
  if (branch?.length === 1) return within(branch[0] as SchemaNode, node, value, path, drop, walk);
  return within(node, node, value, path, drop, walk);
}

/** The types a node accepts, as far as its `type` and `const` say (empty: it does not say). */
function typeOf(node: SchemaNode): Set<string> {
  const types = new Set<string>(node.type === undefined ? [] : typeof node.type === "string" ? [node.type] : node.type);
  if ("const" in node) types.add(jsonType((node as { const: unknown }).const));
  if (types.has("number")) types.add("integer");
  return types;
}

function within(
  node: SchemaNode,
  outer: SchemaNode,
  value: unknown,
  path: ConfigPath,
  dropped: Consequence,
  walk: Walk,
): Kept {
  const consequence = node.consequence ?? outer.consequence;
  const drop = consequence === undefined ? dropped : { ...dropped, text: consequence };
  if ((node.properties !== undefined || isMapping(node.additionalProperties)) && isMapping(value)) {
    const kept = pruneMapping(node, value, path, walk);
    if (kept === undefined) return { keep: false };
    if (check(node, kept)) return { keep: true, value: kept };
    const missing = (node.required ?? []).filter((key) => !(key in kept));
    if (missing.length > 0) {
      say(node, path, drop, walk, `needs ${missing.map((key) => `"${key}"`).join(" and ")}`);
      return { keep: false };
    }
  } else if (node.items !== undefined && Array.isArray(value)) {
    const item = node.items as SchemaNode;
    const entry = dropOf(item);
    const kept = value.flatMap((v, i) => {
      const one = prune(item, v, [...path, i], entry, walk);
      return one.keep ? [one.value] : [];
    });
    if (check(node, kept)) return { keep: true, value: kept };
  }
  say(node.errorMessage === undefined ? outer : node, path, drop, walk);
  return { keep: false };
}

/** The valid keys of a mapping, or undefined when a required key is wrong (already reported). */
function pruneMapping(node: SchemaNode, value: Record<string, unknown>, path: ConfigPath, walk: Walk) {
  const properties = node.properties ?? {};
  const required = new Set(node.required ?? []);
  const dropsMe: Consequence = {
    text: `${node.noun ?? "it"} ignored`,
    severity: node.dropSeverity ?? "warning",
  };
  const kept: Record<string, unknown> = {};
  let whole = true;
  for (const [key, v] of Object.entries(value)) {
    const child = properties[key] as SchemaNode | undefined;
    if (child === undefined) {
      if (node.additionalProperties === false) unknownKey(key, Object.keys(properties), [...path, key], walk);
      else if (node.additionalProperties === undefined || node.additionalProperties === true) kept[key] = v;
      else {
        const extra = node.additionalProperties as SchemaNode;
        const one = prune(extra, v, [...path, key], dropOf(extra), walk);
        if (one.keep) kept[key] = one.value;
      }
      continue;
    }
    if (child.dropsMapping && !check(child, v)) {
      say(child, [...path, key], dropsMe, walk);
      whole = false;
      continue;
    }
    const one = prune(child, v, [...path, key], required.has(key) ? dropsMe : dropOf(child), walk);
    if (one.keep) kept[key] = one.value;
    else if (required.has(key)) whole = false;
  }
  return whole ? kept : undefined;
}

function unknownKey(key: string, known: string[], path: ConfigPath, walk: Walk): void {
  const meant = closest(key, known);
  walk.report({
    message: `${walk.unknown(path)} is ignored (known keys: ${known.join(", ")})`,
    path,
    ...(meant ? { hint: `did you mean "${meant}"?` } : {}),
  });
}

function say(node: SchemaNode, path: ConfigPath, drop: Consequence, walk: Walk, what?: string): void {
  walk.report({
    message: `${walk.subject(path)} ${what ?? node.errorMessage ?? "is not valid"}; ${drop.text}`,
    path,
    ...(node.hint !== undefined && { hint: node.hint }),
    severity: drop.severity,
  });
}
