/**
 * Text that came from a file or a client is shown, never obeyed, by the terminal that prints it.
 * A client name or a skill description can carry ESC sequences (OSC 52 clipboard writes, cursor
 * moves, window titles), C1 controls (0x9B is a one-byte CSI on some terminals) or bidirectional
 * overrides that reorder what a reader sees. Each such code point is written as a visible escape
 * (`\x1b`, `\u009b`, `\u202e`) so the reader sees that it is there and the terminal does nothing.
 *
 * `visibleLine` is for a table cell or a one-line message: a run of line breaks and tabs becomes
 * one space (as a table folds a long description), so a carriage return cannot overwrite what was
 * printed before it. `visibleText` keeps them, for a block printed as a paragraph.
 */

// C0 (but tab and line feed, which `visibleText` keeps), DEL, C1, and the bidi embeddings,
// overrides and isolates (Unicode's "Trojan Source" set).
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const LINE_BREAKS = /[\t\n\r]+/g;

function shown(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** One line as a terminal should show it: line breaks folded to a space, other controls escaped. */
export function visibleLine(text: string): string {
  return visibleText(text.replace(LINE_BREAKS, " "));
}

/** A paragraph as a terminal should show it: controls escaped, line breaks and tabs kept. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, shown);
}
