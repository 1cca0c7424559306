/**
 * A skill's eval files, in the field's formats, read as they are (docs/eval.md): its test cases
 * (Agent Skills' `evals/evals.json`; skill-creator's `expectations` accepted for `assertions`)
 * and its trigger set (`{query, should_trigger}` items, skill-creator's `eval_set.json`). A folder
 * skill keeps them in `evals/`; a YAML or JSON skill file keeps them beside itself, named after
 * it. They are the author's test data: never served, never discovered as skills. The schemas are
 * compiled once, on the first file read; a problem is placed at its file:line:col.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import type SchemaModule from "typebox/schema";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { describeFsError } from "./fs-errors.ts";
import { jsonErrorOffset } from "./json-error.ts";

/** Inside a skill folder: the Agent Skills guide's test cases, and the trigger set under skill-creator's export name. */
export const FOLDER_EVALS = "evals/evals.json";
export const FOLDER_TRIGGERS = "evals/eval_set.json";
/** Beside a skill file `greet.yaml`: `greet.evals.json` and `greet.eval_set.json`. */
const EVALS_SUFFIX = ".evals.json";
const TRIGGERS_SUFFIX = ".eval_set.json";

/** A file name that is a skill file's eval data, not a skill of its own (discover.ts leaves it out). */
export function isEvalFileName(name: string): boolean {
  return name.endsWith(EVALS_SUFFIX) || name.endsWith(TRIGGERS_SUFFIX);
}

/** A folder's top-level `evals/` holds the author's test data, which is not served (served-files.ts). */
export function isEvalDataPath(rel: string): boolean {
  return rel.startsWith("evals/");
}

export interface EvalPaths {
  evals: string;
  triggers: string;
}

/** Where a skill's eval files are: `source` is its `SKILL.md` (a folder skill) or its skill file. */
export function evalPathsOf(source: string): EvalPaths {
  const name = basename(source);
  if (name === "SKILL.md" || name === "skill.md") {
    const dir = dirname(source);
    return { evals: join(dir, FOLDER_EVALS), triggers: join(dir, FOLDER_TRIGGERS) };
  }
  const stem = join(dirname(source), name.replace(/\.(ya?ml|json)$/i, ""));
  return { evals: stem + EVALS_SUFFIX, triggers: stem + TRIGGERS_SUFFIX };
}

export interface TriggerItem {
  query: string;
  should_trigger: boolean;
}

export interface EvalCase {
  id: number | string;
  prompt: string;
  expected_output?: string;
  files?: string[];
  /** `assertions` as the guide names them, or skill-creator's `expectations`. */
  assertions: unknown[];
}

export interface EvalsFile {
  skill_name: string;
  evals: EvalCase[];
}

/** Extra fields are kept out of the checks: other tools add their own (skill-creator's `notes`). */
const TRIGGER_SET_SCHEMA = {
  type: "array",
  items: {
    type: "object",
    required: ["query", "should_trigger"],
    properties: { query: { type: "string", minLength: 1 }, should_trigger: { type: "boolean" } },
  },
} as const;

const ASSERTIONS = { type: "array", items: { anyOf: [{ type: "string" }, { type: "object" }] } } as const;
const EVALS_SCHEMA = {
  type: "object",
  required: ["skill_name", "evals"],
  properties: {
    skill_name: { type: "string", minLength: 1 },
    evals: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "prompt"],
        properties: {
          id: { anyOf: [{ type: "integer" }, { type: "string", minLength: 1 }] },
          prompt: { type: "string", minLength: 1 },
          expected_output: { type: "string" },
          files: { type: "array", items: { type: "string" } },
          assertions: ASSERTIONS,
          expectations: ASSERTIONS,
        },
      },
    },
  },
} as const;

type Compiled = ReturnType<typeof SchemaModule.Compile>;
let compiled: { triggers: Compiled; evals: Compiled } | undefined;

/** Both validators, compiled on the first eval file read and kept (TypeBox loads then, not at start-up). */
function validators(): { triggers: Compiled; evals: Compiled } {
  if (compiled === undefined) {
    const Schema = (require("typebox/schema") as { default: typeof SchemaModule }).default;
    compiled = { triggers: Schema.Compile(TRIGGER_SET_SCHEMA), evals: Schema.Compile(EVALS_SCHEMA) };
  }
  return compiled;
}

function jsonc(): typeof import("jsonc-parser/lib/esm/main.js") {
  return require("jsonc-parser/lib/esm/main.js") as typeof import("jsonc-parser/lib/esm/main.js");
}

function positionAt(text: string, offset: number): SourcePosition {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/** `/evals/0/prompt` → `["evals", 0, "prompt"]`. */
function pathOf(pointer: string): (string | number)[] {
  return pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function where(path: readonly (string | number)[]): string {
  const text = path.reduce<string>((t, p) => (typeof p === "number" ? `${t}[${p}]` : t ? `${t}.${p}` : p), "");
  return text === "" ? "the file" : text;
}

/** A schema error placed where it is in the text: the value at its path, or the nearest container of it. */
function schemaProblem(file: string, text: string, pointer: string, message: string): Diagnostic {
  const path = pathOf(pointer);
  const tree = jsonc().parseTree(text);
  let node = tree && jsonc().findNodeAtLocation(tree, path);
  for (let n = path.length - 1; node === undefined && tree !== undefined && n >= 0; n--)
    node = jsonc().findNodeAtLocation(tree, path.slice(0, n));
  return {
    severity: "error",
    code: "eval-schema",
    file,
    message: `${where(path)} ${message}`,
    ...(node !== undefined && { position: positionAt(text, node.offset) }),
    hint: "see docs/eval.md for the format",
  };
}

type Read<T> = { value: T; diagnostics: [] } | { value: undefined; diagnostics: Diagnostic[] };

function readChecked<T>(file: string, check: Compiled): Read<T> | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return {
      value: undefined,
      diagnostics: [
        {
          severity: "error",
          code: "eval-unreadable",
          file,
          message: describeFsError(error),
          hint: "make it a readable JSON file, or remove it",
        },
      ],
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const offset = jsonErrorOffset(text);
    return {
      value: undefined,
      diagnostics: [
        {
          severity: "error",
          code: "eval-json",
          file,
          message: `not valid JSON: ${(error as Error).message.replace(/^JSON Parse error: /, "")}`,
          hint: "an eval file is strict JSON: no comments or trailing commas",
          ...(offset >= 0 && { position: positionAt(text, offset) }),
        },
      ],
    };
  }
  if (check.Check(value)) return { value: value as T, diagnostics: [] };
  const [, errors] = check.Errors(value);
  const seen = new Set<string>();
  const diagnostics = errors.flatMap((e) => {
    const key = `${e.instancePath} ${e.message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [schemaProblem(file, text, e.instancePath, e.message)];
  });
  return { value: undefined, diagnostics };
}

/** A trigger set; undefined when the file does not exist. */
export function readTriggerSet(file: string): Read<TriggerItem[]> | undefined {
  const read = readChecked<TriggerItem[]>(file, validators().triggers);
  if (read?.value === undefined) return read;
  return { value: read.value.map((i) => ({ query: i.query, should_trigger: i.should_trigger })), diagnostics: [] };
}

/** A skill's test cases, `expectations` read as `assertions`; undefined when the file does not exist. */
export function readEvalsFile(file: string): Read<EvalsFile> | undefined {
  const read = readChecked<{ skill_name: string; evals: (EvalCase & { expectations?: unknown[] })[] }>(
    file,
    validators().evals,
  );
  if (read?.value === undefined) return read;
  const evals = read.value.evals.map(({ expectations, assertions, ...rest }) => ({
    ...rest,
    assertions: assertions ?? expectations ?? [],
  }));
  return { value: { skill_name: read.value.skill_name, evals }, diagnostics: [] };
}

/** A warning placed at the value `path` leads to in an eval file (re-read: only a file with something to say). */
function warningAt(file: string, path: (string | number)[], code: string, message: string, hint: string): Diagnostic {
  let position: SourcePosition | undefined;
  try {
    const text = readFileSync(file, "utf8");
    const tree = jsonc().parseTree(text);
    const node = tree && jsonc().findNodeAtLocation(tree, path);
    if (node !== undefined) position = positionAt(text, node.offset);
  } catch {
    // Placed at the file alone.
  }
  return { severity: "warning", code, file, message, hint, ...(position && { position }) };
}

/**
 * What `validate` says of a skill's eval files: their JSON and schema errors, at file:line:col;
 * and, for `evals.json`, a `skill_name` that is not the skill's id, and a listed input file that
 * does not exist (relative to the skill folder, or to the skill file's folder).
 */
export function evalFileFindings(source: string, id?: string): Diagnostic[] {
  const paths = evalPathsOf(source);
  const evals = readEvalsFile(paths.evals);
  const found = [...(evals?.diagnostics ?? []), ...(readTriggerSet(paths.triggers)?.diagnostics ?? [])];
  if (evals?.value === undefined) return found;
  if (id !== undefined && evals.value.skill_name !== id)
    found.push(
      warningAt(
        paths.evals,
        ["skill_name"],
        "eval-skill-name",
        `skill_name "${evals.value.skill_name}" is not this skill's id "${id}"`,
        `write "skill_name": "${id}"`,
      ),
    );
  const root = dirname(source);
  evals.value.evals.forEach((e, i) => {
    (e.files ?? []).forEach((f, j) => {
      const outside = isAbsolute(f) || relative(root, join(root, f)).startsWith("..");
      if (outside || !existsSync(join(root, f)))
        found.push(
          warningAt(
            paths.evals,
            ["evals", i, "files", j],
            "eval-file-missing",
            outside
              ? `evals[${i}].files[${j}]: "${f}" is outside the skill's folder`
              : `evals[${i}].files[${j}]: no file "${f}" in the skill's folder`,
            "list files relative to the skill folder (evals/files/… is usual), or add the file",
          ),
        );
    });
  });
  return found;
}
