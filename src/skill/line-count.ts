/** How many `\n` there are in `text` from `from` on, without a string per line. */
export function newlinesIn(text: string, from = 0): number {
  let count = 0;
  for (let i = text.indexOf("\n", from); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/**
 * How many lines `text` has, as an editor counts them: a final newline ends the last line
 * rather than starting another; "" is one line. Equals
 * `text.split("\n").length - (text.endsWith("\n") ? 1 : 0)`; pass `newlines` when already counted.
 */
export function lineCount(text: string, newlines = newlinesIn(text)): number {
  return newlines + 1 - (text.endsWith("\n") ? 1 : 0);
}
