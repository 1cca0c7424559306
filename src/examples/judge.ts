/** Whether an example passed: what a call produced judged against its `expect`, `contains` or `error`, and why not. */
import { EXAMPLE_FIELDS } from "../skill/examples.ts";
import type { SkillExample } from "../skill/skill.ts";
import { closest } from "../suggest.ts";

/** What a call produced: the text the server would send, or the message it would fail with. */
export type Outcome = { ok: true; text: string } | { ok: false; message: string };

/** Why an example failed, for code that shows it (a diff only makes sense for `text-differs`). */
export type FailureKind =
  | "invalid-example"
  | "asserts-nothing"
  | "unexpected-success"
  | "wrong-error"
  | "call-failed"
  | "text-differs"
  | "text-missing";

export type Verdict =
  | { pass: true }
  | {
      pass: false;
      failure: FailureKind;
      /** One line saying what went wrong, e.g. `output differs from "expect"`. */
      reason: string;
      expected?: string;
      actual?: string;
      /** `contains` entries the output lacks. */
      missing?: string[];
    };

/**
 * Rendered text never ends in whitespace (the renderer trims it), while a YAML block scalar
 * (`expect: |`) always ends in a newline: trailing whitespace of `expect` is not compared.
 */
export function expectedText(expect: string): string {
  return expect.trimEnd();
}

/**
 * Why an example with a key that is not a field (`expcet:`) and no `expect`, `contains` or
 * `error` asserts nothing: its author meant to check something, so it must not count as a pass.
 */
function assertsNothing(example: SkillExample): string | undefined {
  const unknown = example.unknownFields ?? [];
  if (
    unknown.length === 0 ||
    example.expect !== undefined ||
    example.contains !== undefined ||
    example.error !== undefined
  )
    return undefined;
  const named = unknown.map((key) => {
    const meant = closest(key, EXAMPLE_FIELDS);
    return `"${key}"${meant ? ` (did you mean "${meant}"?)` : ""}`;
  });
  return `the example asserts nothing: ${named.join(", ")} ${unknown.length === 1 ? "is not a field" : "are not fields"} of an example; check the output with "expect", "contains" or "error"`;
}

/**
 * Judges one inline example against the outcome of its call:
 * `expect` is the exact text, `contains` lists substrings, `error` a substring of the failure
 * message; an example with none of them passes when the call succeeds, unless it holds a key
 * that is not a field (a misspelt `expect`), which fails it (see assertsNothing).
 */
export function judge(example: SkillExample, outcome: Outcome): Verdict {
  const nothing = assertsNothing(example);
  if (nothing)
    return {
      pass: false,
      failure: "asserts-nothing",
      reason: nothing,
      ...(outcome.ok ? { actual: outcome.text } : { actual: outcome.message }),
    };
  if (example.error !== undefined && (example.expect !== undefined || example.contains !== undefined)) {
    return {
      pass: false,
      failure: "invalid-example",
      reason: 'an example expects either an "error" or output ("expect", "contains"), not both',
    };
  }
  if (example.error !== undefined) {
    if (outcome.ok)
      return {
        pass: false,
        failure: "unexpected-success",
        reason: `expected the call to fail with "${example.error}", but it succeeded`,
        expected: example.error,
        actual: outcome.text,
      };
    if (!outcome.message.includes(example.error)) {
      return {
        pass: false,
        failure: "wrong-error",
        reason: `the call failed, but its message does not contain "${example.error}"`,
        expected: example.error,
        actual: outcome.message,
      };
    }
    return { pass: true };
  }
  if (!outcome.ok)
    return {
      pass: false,
      failure: "call-failed",
      reason: `the call failed: ${outcome.message.split("\n").join("; ")}`,
      actual: outcome.message,
    };
  if (example.expect !== undefined && outcome.text !== expectedText(example.expect)) {
    return {
      pass: false,
      failure: "text-differs",
      reason: 'output differs from "expect"',
      expected: expectedText(example.expect),
      actual: outcome.text,
    };
  }
  const missing = (example.contains ?? []).filter((part) => !outcome.text.includes(part));
  if (missing.length > 0) {
    return {
      pass: false,
      failure: "text-missing",
      reason: `output does not contain ${missing.map((m) => JSON.stringify(m)).join(", ")}`,
      actual: outcome.text,
      missing,
    };
  }
  return { pass: true };
}
