import type { SkillExample } from "../skill/skill.ts";

/** What a call produced: the text the server would send, or the message it would fail with. */
export type Outcome = { ok: true; text: string } | { ok: false; message: string };

/** Why an example failed, for code that shows it (a diff only makes sense for `text-differs`). */
export type FailureKind = "invalid-example" | "unexpected-success" | "wrong-error" | "call-failed" | "text-differs" | "text-missing";

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
 * Judges one inline example against the outcome of its call:
 * `expect` is the exact text, `contains` lists substrings, `error` a substring of the failure
 * message; an example with none of them passes when the call succeeds.
 */
export function judge(example: SkillExample, outcome: Outcome): Verdict {
  if (example.error !== undefined && (example.expect !== undefined || example.contains !== undefined)) {
    return { pass: false, failure: "invalid-example", reason: 'an example expects either an "error" or output ("expect", "contains"), not both' };
  }
  if (example.error !== undefined) {
    if (outcome.ok) return { pass: false, failure: "unexpected-success", reason: `expected the call to fail with "${example.error}", but it succeeded`, expected: example.error, actual: outcome.text };
    if (!outcome.message.includes(example.error)) {
      return { pass: false, failure: "wrong-error", reason: `the call failed, but its message does not contain "${example.error}"`, expected: example.error, actual: outcome.message };
    }
    return { pass: true };
  }
  if (!outcome.ok) return { pass: false, failure: "call-failed", reason: `the call failed: ${outcome.message.split("\n").join("; ")}`, actual: outcome.message };
  if (example.expect !== undefined && outcome.text !== expectedText(example.expect)) {
    return { pass: false, failure: "text-differs", reason: 'output differs from "expect"', expected: expectedText(example.expect), actual: outcome.text };
  }
  const missing = (example.contains ?? []).filter((part) => !outcome.text.includes(part));
  if (missing.length > 0) {
    return { pass: false, failure: "text-missing", reason: `output does not contain ${missing.map((m) => JSON.stringify(m)).join(", ")}`, actual: outcome.text, missing };
  }
  return { pass: true };
}
