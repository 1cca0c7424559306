/**
 * Whether a tool's `pattern`s can be run on the request thread. JavaScript's regular
 * expressions backtrack: `^(a+)+$` against 30 a's and a "!" runs for seconds, and nothing can
 * interrupt it. A pattern is run on the request thread only when redos-detector proves that
 * every input can match it at most a few ways (no catastrophic backtracking); anything it cannot
 * prove within a small budget is "guarded": that tool's arguments are checked on a worker thread
 * with a time limit (guarded-validation.ts). Proving costs ~1–10 ms a pattern, so it is done on
 * the first call that needs it and remembered, never at load.
 */
import type { JsonSchema } from "../skill/json-schema.ts";
import { isPlainObject } from "../skill/json-schema.ts";

const verdicts = new Map<string, boolean>();

/**
 * What redos-detector may spend proving one pattern; a pattern it cannot prove within this is
 * guarded. The steps decide, so a pattern gets the same verdict on every machine and under any
 * load (every safe pattern in the tests proves in under 300); the time limit only stops a
 * pathological pattern whose steps are slow, and is far above what 1,000 steps take.
 */
export const PROOF_BUDGET = { maxSteps: 1_000, timeoutMs: 2_000 } as const;
const guardedSchemas = new WeakMap<JsonSchema, boolean>();

type Detector = typeof import("redos-detector");
let detector: Detector | undefined;

/** Proven free of catastrophic backtracking (patterns are compiled with the `u` flag, as TypeBox does). */
export function provenSafe(pattern: string): boolean {
  let verdict = verdicts.get(pattern);
  if (verdict === undefined) {
    detector ??= require("redos-detector") as Detector;
    try {
      const result = detector.isSafePattern(pattern, {
        unicode: true,
        timeout: PROOF_BUDGET.timeoutMs,
        maxSteps: PROOF_BUDGET.maxSteps,
      });
      verdict = result.safe && result.error === null;
    } catch {
      // A pattern the detector cannot read (a feature it does not support) is not proven safe.
      verdict = false;
    }
    verdicts.set(pattern, verdict);
  }
  return verdict;
}

/** Every regular expression a schema runs on values: `pattern`s and `patternProperties` keys. */
export function patternsOf(schema: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) for (const item of node) stack.push(item);
    else if (isPlainObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        if (key === "enum" || key === "const" || key === "default" || key === "examples") continue;
        if (key === "pattern" && typeof value === "string") found.push(value);
        else if (key === "patternProperties" && isPlainObject(value))
          for (const name of Object.keys(value)) found.push(name);
        if (typeof value === "object" && value !== null) stack.push(value);
      }
    }
  }
  return found;
}

/** Whether a schema's arguments must be checked off the request thread. */
export function needsGuard(schema: JsonSchema): boolean {
  let guarded = guardedSchemas.get(schema);
  if (guarded === undefined) {
    guarded = patternsOf(schema).some((p) => !provenSafe(p));
    guardedSchemas.set(schema, guarded);
  }
  return guarded;
}
