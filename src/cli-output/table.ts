/**
 * Tables for the terminal: left-aligned columns cut to its width. A cell's text came from a file,
 * a config or a client (a description, a client name), so each is made visible here, the one place
 * every table passes through: a control character is shown as an escape, never obeyed. Widths are
 * what a terminal draws (`Bun.stringWidth`: a CJK character or an emoji takes two columns), so a
 * description in any script is cut where the terminal ends, not past it.
 */
import { visibleLine } from "../visible-text.ts";

export interface TableOptions {
  /** Total width available (a terminal's columns); the last column is cut to fit. */
  maxWidth?: number;
  /** Styles the header row after padding (padding is computed on the plain text). */
  header?: (text: string) => string;
  /** Styles one cell (by row and column, the header being row 0) after it is made visible and cut. */
  paint?: (row: number, column: number) => ((text: string) => string) | undefined;
  /**
   * Columns (by index) left out, in the order given, while the last column would have fewer than
   * `lastWidth` columns under `maxWidth`: `list` drops its tags rather than cut its descriptions
   * to a few letters (a tag cut to "api,b…" says nothing either).
   */
  drop?: { columns: readonly number[]; lastWidth: number };
}

/** The columns a terminal draws `text` in. */
const widthOf = (text: string): number => Bun.stringWidth(text);

/** Cuts `text` to `width` terminal columns, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  if (widthOf(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const char of text) {
    const w = widthOf(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}

/** The columns kept: those of `drop` left out, one at a time, until the last column has its room. */
function kept(widths: readonly number[], maxWidth: number | undefined, drop: TableOptions["drop"]): number[] {
  let keep = widths.map((_, c) => c);
  if (maxWidth === undefined || drop === undefined) return keep;
  const room = () => maxWidth - keep.slice(0, -1).reduce((sum, c) => sum + widths[c]! + 2, 0);
  for (const column of drop.columns) {
    if (room() >= Math.min(drop.lastWidth, widths[widths.length - 1]!)) break;
    if (column < widths.length - 1) keep = keep.filter((c) => c !== column);
  }
  return keep;
}

/**
 * Left-aligned columns two spaces apart; the first row is the header. Lines carry no trailing
 * spaces, so the output diffs and greps cleanly.
 */
export function formatTable(rawRows: readonly (readonly string[])[], options: TableOptions = {}): string {
  if (rawRows.length === 0) return "";
  // A row is one line: a cell that holds line breaks (a long description) is folded onto it, and
  // its controls are shown as escapes, before the widths are measured on what is printed.
  const cells = rawRows.map((row) =>
    row.map((cell) => visibleLine(/[\r\n\t]/.test(cell) ? cell.replace(/\s+/g, " ") : cell)),
  );
  const width = cells.reduce((most, r) => Math.max(most, r.length), 0);
  const natural = Array.from({ length: width }, (_, c) =>
    cells.reduce((most, r) => Math.max(most, widthOf(r[c] ?? "")), 0),
  );
  const keep = kept(natural, options.maxWidth, options.drop);
  const rows = cells.map((row) => keep.map((c) => row[c] ?? ""));
  const widths = keep.map((c) => natural[c]!);
  const columns = keep.length;
  const lines = rows.map((row, r) => {
    let line = "";
    let used = 0; // printed width so far: `line` may carry a painted cell's style codes
    for (let c = 0; c < columns; c++) {
      const last = c === columns - 1;
      const room = options.maxWidth === undefined ? Number.POSITIVE_INFINITY : options.maxWidth - used;
      const cell = truncate(row[c] ?? "", last ? Math.max(room, 0) : widths[c]!);
      const paint = cell === "" ? undefined : options.paint?.(r, keep[c]!);
      line += paint ? paint(cell) : cell;
      const drawn = widthOf(cell);
      used += drawn;
      if (!last) {
        line += " ".repeat(widths[c]! - drawn + 2);
        used += widths[c]! - drawn + 2;
      }
    }
    line = line.trimEnd();
    return r === 0 && options.header ? options.header(line) : line;
  });
  return `${lines.join("\n")}\n`;
}
