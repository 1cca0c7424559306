/**
 * How many lines `text` has, as an editor counts them: a final newline ends the last line
 * rather than starting another; "" is one line. Equals
 * `text.split("\n").length - (text.endsWith("\n") ? 1 : 0)` without a string per line.
 */
export function lineCount(text: string): number {
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}
