export interface TableOptions {
  /** Total width available (a terminal's columns); the last column is cut to fit. */
  maxWidth?: number;
  /** Styles the header row after padding (padding is computed on the plain text). */
  header?: (text: string) => string;
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
  // A row is one line: a cell that holds line breaks (a long description) is folded onto it.
  const rows = rawRows.map((row) => row.map((cell) => (/[\r\n\t]/.test(cell) ? cell.replace(/\s+/g, " ") : cell)));
  const columns = rows.reduce((most, r) => Math.max(most, r.length), 0);
  const widths = Array.from({ length: columns }, (_, c) =>
    rows.reduce((most, r) => Math.max(most, (r[c] ?? "").length), 0),
  );
  const lines = rows.map((row, r) => {
    let line = "";
    for (let c = 0; c < columns; c++) {
      const cell = row[c] ?? "";
      const last = c === columns - 1;
      if (last) {
        const room = options.maxWidth === undefined ? cell.length : options.maxWidth - line.length;
        line += truncate(cell, Math.max(room, 0));
      } else line += `${cell.padEnd(widths[c]!)}  `;
    }
    line = line.trimEnd();
    return r === 0 && options.header ? options.header(line) : line;
  });
  return `${lines.join("\n")}\n`;
}
