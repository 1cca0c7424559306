import type { Diagnostic } from "../diagnostics.ts";
import { formatDiff, lineDiff } from "../examples/diff.ts";
import type { ExampleResult } from "../examples/run.ts";
import type { Palette } from "./colour.ts";

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
  const lines = [result.reason ?? "failed", `arguments: ${JSON.stringify(result.arguments)}`];
  if (result.failure === "text-differs" && result.expected !== undefined && result.actual !== undefined) {
    lines.push(colours.dim("--- expect  +++ actual"));
    const diff = formatDiff(lineDiff(result.expected, result.actual), { removed: colours.red, added: colours.green });
    for (const line of diff) lines.push(line);
  } else if (result.failure === "wrong-error" && result.expected !== undefined) {
    lines.push(`expected a message containing: ${result.expected}`, "actual message:");
    for (const l of clip(result.actual ?? "")) lines.push(`  ${l}`);
  } else if (result.actual !== undefined && result.failure !== "call-failed") {
    lines.push("actual:");
    for (const l of clip(result.actual)) lines.push(`  ${l}`);
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
