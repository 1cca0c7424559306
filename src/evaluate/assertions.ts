/**
 * Grading one run's answer against its eval's assertions (docs/eval.md). An assertion string
 * that starts with a known prefix is checked by code: `contains: text` and `not-contains: text`
 * (case-insensitive), `regex: /x/i`, `json-schema: {…}` or a schema file (the answer's first
 * fenced JSON block, else the whole answer), `file: name` (the run produced that file). Anything
 * else is free text: graded by the grader model when there is one, else reported `not graded`
 * and never counted as passed. Schemas are compiled once per distinct schema, on first use.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import type SchemaModule from "typebox/schema";
import { isObject } from "./conversation.ts";

export type GraderKind = "contains" | "regex" | "json-schema" | "file" | "model" | "none";

export interface Expectation {
  text: string;
  passed: boolean;
  evidence: string;
  grader: GraderKind;
}

export interface Grading {
  expectations: Expectation[];
  summary: { passed: number; failed: number; total: number; pass_rate: number };
}

/** What an answer is checked against: its text, the files it produced, and where relative schema paths start. */
export interface Answer {
  text: string;
  /** The run's outputs/ folder. */
  outputs: string;
  /** The skill's folder (schema files are named relative to it). */
  root: string;
}

/** Grades a free-text assertion; absent, such assertions are not graded. */
export type ModelGrader = (assertion: string, answer: string) => Promise<{ passed: boolean; evidence: string }>;

type Compiled = ReturnType<typeof SchemaModule.Compile>;
const SCHEMAS = new Map<string, Compiled | Error>();

function compiled(schema: unknown): Compiled | Error {
  const key = JSON.stringify(schema);
  let found = SCHEMAS.get(key);
  if (found === undefined) {
    const Schema = (require("typebox/schema") as { default: typeof SchemaModule }).default;
    try {
      found = Schema.Compile(schema as Parameters<typeof Schema.Compile>[0]);
    } catch (error) {
      found = error instanceof Error ? error : new Error(String(error));
    }
    SCHEMAS.set(key, found);
  }
  return found;
}

const cut = (text: string, n = 120) => (text.length > n ? `${text.slice(0, n)}…` : text);

/** The fenced blocks of a Markdown answer: their info string and body. */
export function fencedBlocks(text: string): { info: string; body: string }[] {
  const blocks: { info: string; body: string }[] = [];
  const fence = /^(```+|~~~+)[ \t]*([^\n]*)\n([\s\S]*?)^\1[ \t]*$/gm;
  for (const m of text.matchAll(fence)) blocks.push({ info: m[2]!.trim(), body: m[3]! });
  return blocks;
}

function answerJson(text: string): { value: unknown } | undefined {
  const block = fencedBlocks(text).find((b) => /^json\b/i.test(b.info));
  for (const candidate of [block?.body, text]) {
    if (candidate === undefined) continue;
    try {
      return { value: JSON.parse(candidate) };
    } catch {
      // The next candidate.
    }
  }
  return undefined;
}

function checkSchema(spec: string, answer: Answer): Expectation & { text: "" } {
  const result = (passed: boolean, evidence: string) => ({
    text: "" as const,
    passed,
    evidence,
    grader: "json-schema" as const,
  });
  let schema: unknown;
  try {
    if (spec.startsWith("{")) schema = JSON.parse(spec);
    else {
      const file = isAbsolute(spec) ? spec : join(answer.root, spec);
      schema = JSON.parse(readFileSync(file, "utf8"));
    }
  } catch (error) {
    return result(false, `the assertion's schema cannot be read: ${cut((error as Error).message)}`);
  }
  const check = compiled(schema);
  if (check instanceof Error) return result(false, `the assertion's schema is not valid: ${cut(check.message)}`);
  const json = answerJson(answer.text);
  if (json === undefined)
    return result(false, "the answer holds no JSON (neither a ```json block nor JSON as a whole)");
  if (check.Check(json.value)) return result(true, "the answer's JSON matches the schema");
  const [, errors] = check.Errors(json.value);
  const first = errors[0];
  return result(false, first ? `${first.instancePath || "/"} ${first.message}` : "does not match the schema");
}

/** A code check for `assertion`, or undefined when it is free text. */
function byCode(assertion: string, answer: Answer): Omit<Expectation, "text"> | undefined {
  const m = /^(contains|not-contains|regex|json-schema|file)\s*:\s*([\s\S]*)$/i.exec(assertion.trim());
  if (m === null) return undefined;
  const kind = m[1]!.toLowerCase();
  const arg = m[2]!.trim();
  if (kind === "contains" || kind === "not-contains") {
    const at = answer.text.toLowerCase().indexOf(arg.toLowerCase());
    const found = arg !== "" && at >= 0;
    const passed = kind === "contains" ? found : !found;
    return {
      passed,
      evidence: found
        ? `found at character ${at}: "${cut(answer.text.slice(at, at + 80), 80)}"`
        : `"${cut(arg)}" not in the answer`,
      grader: "contains",
    };
  }
  if (kind === "regex") {
    const literal = /^\/([\s\S]*)\/([a-z]*)$/.exec(arg);
    let pattern: RegExp;
    try {
      pattern = literal ? new RegExp(literal[1]!, literal[2]!.replace(/g/g, "")) : new RegExp(arg);
    } catch (error) {
      return { passed: false, evidence: `not a valid pattern: ${cut((error as Error).message)}`, grader: "regex" };
    }
    const hit = pattern.exec(answer.text);
    return {
      passed: hit !== null,
      evidence: hit ? `matched "${cut(hit[0], 80)}" at character ${hit.index}` : "no match in the answer",
      grader: "regex",
    };
  }
  if (kind === "json-schema") {
    const { passed, evidence, grader } = checkSchema(arg, answer);
    return { passed, evidence, grader };
  }
  const file = join(answer.outputs, arg);
  const inside = arg !== "" && !isAbsolute(arg) && !relative(answer.outputs, file).startsWith("..");
  const produced = inside && existsSync(file);
  return {
    passed: produced,
    evidence: produced ? `outputs/${arg} was produced` : `no outputs/${arg}: the answer has no fenced block naming it`,
    grader: "file",
  };
}

/** An assertion as text: a string as it is; an object by its `text` (or `assertion`, `description`), else its JSON. */
export function assertionText(assertion: unknown): string {
  if (typeof assertion === "string") return assertion;
  if (isObject(assertion))
    for (const key of ["text", "assertion", "description"])
      if (typeof assertion[key] === "string") return assertion[key] as string;
  return JSON.stringify(assertion);
}

export async function grade(assertions: readonly unknown[], answer: Answer, model?: ModelGrader): Promise<Grading> {
  const expectations: Expectation[] = [];
  for (const raw of assertions) {
    const text = assertionText(raw);
    const coded = byCode(text, answer);
    if (coded !== undefined) expectations.push({ text, ...coded });
    else if (model === undefined)
      expectations.push({
        text,
        passed: false,
        evidence: "not graded: free text needs --grader-model",
        grader: "none",
      });
    else {
      try {
        expectations.push({ text, ...(await model(text, answer.text)), grader: "model" });
      } catch (error) {
        expectations.push({
          text,
          passed: false,
          evidence: `grader failed: ${(error as Error).message}`,
          grader: "model",
        });
      }
    }
  }
  const passed = expectations.filter((e) => e.passed).length;
  const total = expectations.length;
  return {
    expectations,
    summary: {
      passed,
      failed: total - passed,
      total,
      pass_rate: total === 0 ? 0 : Math.round((passed / total) * 100) / 100,
    },
  };
}
