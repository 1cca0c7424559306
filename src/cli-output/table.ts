/**
 * Tables for the terminal: left-aligned columns cut to its width. A cell's text came from a file,
 * a config or a client (a description, a client name), so each is made visible here, the one place
 * every table passes through: a control character is shown as an escape, never obeyed.
 */
import { visibleLine } from "../visible-text.ts";

export interface TableOptions {
  /** Total width available (a terminal's columns); the last column is cut to fit. */
  maxWidth?: number;
  /** Styles the header row after padding (padding is computed on the plain text). */
  header?: (text: string) => string;
  /** Styles one cell (by row and column, the header being row 0) after it is made visible and cut. */
  paint?: (row: number, column: number) => ((text: string) => string) | undefined;
}

/** Cuts `text` to `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/**
 * Left-aligned columns two spaces apart; the first row is the header. Lines carry no trailing
 * spaces, so the output diffs and greps cleanly.
 */
export function formatTable(rawRows: readonly (readonly string[])[], options: TableOptions = {}): string {
  if (rawRows.length === 0) return "";
  // A row is one line: a cell that holds line breaks (a long description) is folded onto it, and
  // its controls are shown as escapes, before the widths are measured on what is printed.
  const rows = rawRows.map((row) =>
    row.map((cell) => visibleLine(/[\r\n\t]/.test(cell) ? cell.replace(/\s+/g, " ") : cell)),
  );
  const columns = rows.reduce((most, r) => Math.max(most, r.length), 0);
  const widths = Array.from({ length: columns }, (_, c) =>
    rows.reduce((most, r) => Math.max(most, (r[c] ?? "").length), 0),
  );
  const lines = rows.map((row, r) => {
    let line = "";
    let used = 0; // printed width so far: `line` may carry a painted cell's style codes
    for (let c = 0; c < columns; c++) {
      const last = c === columns - 1;
      const room = options.maxWidth === undefined ? Number.POSITIVE_INFINITY : options.maxWidth - used;
      const cell = last ? truncate(row[c] ?? "", Math.max(room, 0)) : (row[c] ?? "");
      const paint = cell === "" ? undefined : options.paint?.(r, c);
      line += paint ? paint(cell) : cell;
      used += cell.length;
      if (!last) {
        line += " ".repeat(widths[c]! - cell.length + 2);
        used += widths[c]! - cell.length + 2;
      }
    }
    line = line.trimEnd();
    return r === 0 && options.header ? options.header(line) : line;
  });
  return `${lines.join("\n")}\n`;
}
