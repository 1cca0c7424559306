/** A client's config file (JSON, JSON with comments or TOML) parsed so one value can change and nothing else does. */
import {
  EditRefused,
  editJson,
  getJsonValue,
  isSyntaxProblem,
  JSONC,
  jsonValue,
  parseJson,
  STRICT_JSON,
  type SyntaxProblem,
} from "./json-edit.ts";
import { editToml, getTomlValue, parseToml } from "./toml-edit.ts";

/** How a client's file is written: strict JSON, JSON with comments, or TOML. */
export type ConfigFormat = "json" | "jsonc" | "toml";

/** A parsed config file that can change one value at a path and nothing else. */
export interface ConfigDocument {
  format: ConfigFormat;
  text: string;
  /** The whole document as data (undefined for an empty JSON file). */
  data: unknown;
  get(path: readonly string[]): unknown;
  /**
   * The new text with `value` at `path` (removed when undefined). Throws `EditRefused` when the
   * file cannot be changed safely, including when the new text would not read back as exactly
   * the old document with that one change.
   */
  with(path: readonly string[], value: Record<string, unknown> | undefined): string;
}

export { EditRefused, type SyntaxProblem };

/** The UTF-8 byte order mark some editors (VS Code's family, Notepad) put at the start of a file. */
const BOM = "\uFEFF";

/**
 * The document in `text`. A leading byte order mark is set aside while parsing (neither parser
 * takes it; positions in errors then count from the first visible character, as an editor shows
 * them) and put back in front of every edited text, so the file keeps it.
 */
export function openConfig(format: ConfigFormat, text: string): ConfigDocument | SyntaxProblem {
  if (!text.startsWith(BOM)) return openBody(format, text);
  const doc = openBody(format, text.slice(BOM.length));
  if (!isConfigDocument(doc)) return doc;
  return { ...doc, text, with: (path, value) => BOM + doc.with(path, value) };
}

function openBody(format: ConfigFormat, text: string): ConfigDocument | SyntaxProblem {
  if (format === "toml") {
    const doc = parseToml(text);
    if ("message" in doc) return doc;
    return {
      format,
      text,
      data: doc.data,
      get: (path) => getTomlValue(doc, path),
      with: (path, value) => checked(format, doc.data, path, value, editToml(doc, path, value)),
    };
  }
  const doc = parseJson(text, format === "jsonc" ? JSONC : STRICT_JSON);
  if (isSyntaxProblem(doc)) return doc;
  const data = jsonValue(doc);
  return {
    format,
    text,
    data,
    get: (path) => getJsonValue(doc, path),
    with: (path, value) => checked(format, data, path, value, editJson(doc, path, value)),
  };
}

export function isConfigDocument(value: ConfigDocument | SyntaxProblem): value is ConfigDocument {
  return "with" in value;
}

/** Keys sorted, dates as ISO text: two documents are equal as data when these strings are. */
export function canonical(value: unknown): string {
  const norm = (v: unknown): unknown => {
    if (v instanceof Date) return v.toISOString();
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === "object")
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, norm((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return JSON.stringify(norm(value)) ?? "undefined";
}

function withValue(data: unknown, path: readonly string[], value: unknown): unknown {
  const root = structuredClone((data ?? {}) as Record<string, unknown>);
  let node: Record<string, unknown> = root;
  for (const key of path.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== "object") node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return root;
}

/** `data` without the objects along `path` that are empty, innermost first. */
function pruned(data: unknown, path: readonly string[]): unknown {
  const root = structuredClone(data) as Record<string, unknown>;
  for (let depth = path.length - 1; depth > 0; depth--) {
    let parent: Record<string, unknown> = root;
    for (const key of path.slice(0, depth - 1)) parent = parent[key] as Record<string, unknown>;
    const key = path[depth - 1]!;
    const child = parent?.[key];
    if (child && typeof child === "object" && Object.keys(child).length === 0) delete parent[key];
    else break;
  }
  return root;
}

/** The edit's result, once it reads back as the old document with exactly that one change. */
function checked(format: ConfigFormat, before: unknown, path: readonly string[], value: unknown, text: string): string {
  const reread = openConfig(format, text);
  if (!isConfigDocument(reread)) {
    throw new EditRefused(
      `the edited file would not parse (${reread.line}:${reread.column}: ${reread.message}); nothing was written`,
    );
  }
  if (value === undefined && before === undefined) return text;
  const expected = withValue(before, path, value);
  // Removing the last server may leave its parent empty (JSON) or make it vanish (a TOML table that only existed for it).
  const accepted =
    value === undefined ? [canonical(expected), canonical(pruned(expected, path))] : [canonical(expected)];
  if (!accepted.includes(canonical(reread.data))) {
    throw new EditRefused(
      `the edited file would read back differently than intended (is "${path.join(".")}" defined twice?); nothing was written`,
    );
  }
  return text;
}
