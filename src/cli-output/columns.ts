/**
 * How wide the command's output may be: what `list` and the other tables fit their last column to.
 * `COLUMNS` wins when it is a positive whole number (as `ls` and git read it: a script or a test
 * asks for a width that way, and a pager's wrapper sets it); otherwise a terminal's own width;
 * otherwise no limit, so output piped to grep or a file keeps every description whole.
 */

/** The fewest columns a table is fitted to: a narrower value is a mistake, not a terminal. */
const MIN_COLUMNS = 20;

/** `{ columns }` to fit output to, or `{}` for no limit: spread into a command's context. */
export function outputWidth(
  stdout: { isTTY?: boolean; columns?: number },
  env: Readonly<Record<string, string | undefined>>,
): { columns?: number } {
  const asked = env.COLUMNS?.trim();
  if (asked !== undefined && /^\d+$/.test(asked) && Number(asked) > 0)
    return { columns: Math.max(MIN_COLUMNS, Number(asked)) };
  if (stdout.isTTY && stdout.columns) return { columns: Math.max(MIN_COLUMNS, stdout.columns) };
  return {};
}
