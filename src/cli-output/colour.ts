/**
 * Colour for people, plain text for pipes: styles apply only when the stream is a terminal and
 * `NO_COLOR` is unset or empty (https://no-color.org). Everything else gets the text unchanged,
 * so a test or a script never sees an escape code.
 */
export interface Palette {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function colourEnabled(isTTY: boolean | undefined, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return isTTY === true;
}

const style = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const plain = (text: string) => text;

export function palette(enabled: boolean): Palette {
  if (!enabled) return { enabled, bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    enabled,
    bold: style(1, 22),
    dim: style(2, 22),
    red: style(31, 39),
    green: style(32, 39),
    yellow: style(33, 39),
    cyan: style(36, 39),
  };
}

/** Colours a compiler-style line by its severity word, leaving the text itself untouched. */
export function colourDiagnostic(line: string, colours: Palette): string {
  if (!colours.enabled) return line;
  return line.replace(/(^|: )(error|warning|note)(?=: )/, (_, lead: string, word: string) => {
    const paint = word === "error" ? colours.red : word === "warning" ? colours.yellow : colours.cyan;
    return `${lead}${paint(word)}`;
  });
}
