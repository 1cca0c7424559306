/** How a failed inline example is shown in the terminal (where, why, the diff) and as a finding, for `test` and `validate` alike. */
import type { Diagnostic } from "../diagnostics.ts";
import { formatDiff, lineDiff } from "../examples/diff.ts";
import type { ExampleResult } from "../examples/run.ts";
import type { Palette } from "./colour.ts";
import { visibleLine, visibleText } from "../visible-text.ts";

const MAX_SHOWN_LINES = 20;

function clip(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length <= MAX_SHOWN_LINES) return lines;
  return [...lines.slice(0, MAX_SHOWN_LINES), `… ${lines.length - MAX_SHOWN_LINES} more lines`];
}

export function exampleLocation(result: ExampleResult): string {
  return `${result.source}${result.position ? `:${result.position.line}:${result.position.column}` : ""}`;
}

/** The indented detail under a failed example: what was asked, then a diff or the actual text. */
export function exampleFailureDetail(result: ExampleResult, colours: Palette): string[] {
  // The example's texts, its arguments and the rendered output come from the skill's files: every
  // one is made visible before it is diffed or printed (JSON.stringify leaves C1 and bidi as they are).
  const lines = [visibleLine(result.reason ?? "failed"), `arguments: ${visibleLine(JSON.stringify(result.arguments))}`];
  const expected = result.expected === undefined ? undefined : visibleText(result.expected);
  const actual = result.actual === undefined ? undefined : visibleText(result.actual);
  if (result.failure === "text-differs" && expected !== undefined && actual !== undefined) {
    lines.push(colours.dim("--- expect  +++ actual"));
    const diff = formatDiff(lineDiff(expected, actual), { removed: colours.red, added: colours.green });
    for (const line of diff) lines.push(line);
  } else if (result.failure === "wrong-error" && expected !== undefined) {
    lines.push(`expected a message containing: ${visibleLine(expected)}`, "actual message:");
    for (const l of clip(actual ?? "")) lines.push(`  ${l}`);
  } else if (actual !== undefined && result.failure !== "call-failed") {
    lines.push("actual:");
    for (const l of clip(actual)) lines.push(`  ${l}`);
  }
  return lines;
}

/** A failed example as one compiler-style line, for `validate`. */
export function exampleDiagnostic(result: ExampleResult): Diagnostic {
  return {
    severity: "error",
    code: "example-failed",
    file: result.path,
    ...(result.position && { position: result.position }),
    message: `example ${result.number} of "${result.id}": ${result.reason ?? "failed"}`,
    hint: `run \`skill-central test ${result.id}\` for the details`,
  };
}
