/**
 * A `SKILL.md` is YAML frontmatter between `---` lines at the very top, then a markdown body.
 * This splits the two without touching either: the body is served byte for byte.
 */
import { lineCount } from "../line-count.ts";

export type Split =
  | {
      ok: true;
      yaml: string;
      /** 1-based line of the frontmatter's first line in the file. */
      yamlLine: number;
      body: string;
      /** 1-based line of the body's first line in the file. */
      bodyLine: number;
    }
  | { ok: false; message: string; hint: string; line: number };

const OPENING = /^(?:\ufeff)?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*(?:\r?\n|$)/m;

export function splitFrontmatter(text: string): Split {
  const open = OPENING.exec(text);
  if (!open) {
    return {
      ok: false,
      message: "SKILL.md has no frontmatter",
      hint: "start the file with a `---` line, then `name:` and `description:`, then another `---` line",
      line: 1,
    };
  }
  const rest = text.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (!close)
    return {
      ok: false,
      message: "the frontmatter is never closed",
      hint: "end it with a line that holds only `---`",
      line: 1,
    };
  const yaml = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length);
  const yamlLines = lineCount(yaml);
  return { ok: true, yaml, yamlLine: 2, body, bodyLine: 2 + yamlLines + 1 };
}

/** A top-level `key: value` line whose plain value holds `: ` (or ends in `:`), which YAML forbids. */
const UNQUOTED_COLON = /^([A-Za-z_][\w-]*):[ \t]+([^\s"'[{|>&*!#%@`].*?)[ \t]*$/;

export interface Repair {
  yaml: string;
  /** The keys whose values were quoted, with their 1-based line in the frontmatter. */
  quoted: { key: string; line: number }[];
}

/**
 * The mistake public skills make most: `description: Use it for X: Y`, a plain value holding
 * `: `. Strict YAML rejects it while Claude Code loads the skill, so a frontmatter that does not
 * parse is retried once with such values quoted (line numbers unchanged). Undefined when no line
 * has that shape.
 */
export function quoteUnquotedColons(yaml: string): Repair | undefined {
  const quoted: Repair["quoted"] = [];
  const lines = yaml.split("\n");
  for (const [i, raw] of lines.entries()) {
    const cr = raw.endsWith("\r") ? "\r" : "";
    const line = cr ? raw.slice(0, -1) : raw;
    const m = UNQUOTED_COLON.exec(line);
    if (!m) continue;
    const value = m[2]!;
    // ` #` starts a comment in a plain value: what the author meant is not clear, so leave it.
    if (value.includes(" #") || !(/:[ \t]/.test(value) || value.endsWith(":"))) continue;
    lines[i] = `${m[1]}: ${JSON.stringify(value)}${cr}`;
    quoted.push({ key: m[1]!, line: i + 1 });
  }
  return quoted.length > 0 ? { yaml: lines.join("\n"), quoted } : undefined;
}
