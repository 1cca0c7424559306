/**
 * An Agent Skills body rendered as Claude Code renders it, never through Handlebars (public
 * skills hold literal `{{…}}` in code samples):
 * - `${CLAUDE_SKILL_DIR}` is the skill folder's absolute path (for a folder on disk: one inside
 *   the binary has no path a host could open, so there it stays as written);
 * - `$ARGUMENTS` is everything given (the free-text `arguments`, or the named arguments in
 *   declaration order, quoted where they hold spaces);
 * - `$ARGUMENTS[N]` and `$N` are its words (0-based, shell-like quoting; out of range: empty), but
 *   only in a skill that declares `arguments` or `argument-hint` or reads `$ARGUMENTS` (and
 *   never in a price: see placeholders.ts);
 * - `$name` is a declared argument's value;
 * - when arguments were given and nothing in the body reads them, `ARGUMENTS: <value>` is appended.
 * Everything else is served byte for byte; rendered without arguments, the body comes back as it
 * is written (apart from `${CLAUDE_SKILL_DIR}`). `` !`command` `` is never run.
 */
import type { Skill } from "../skill/skill.ts";
import { PLACEHOLDER, SKILL_DIR_PLACEHOLDER } from "../skill/skill-md/placeholders.ts";

/** Words as a shell splits them: whitespace separates, quotes group, a backslash escapes. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && (text[i + 1] === '"' || text[i + 1] === "\\")) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function quoteWord(value: string): string {
  return value === "" || /[\s"'\\]/.test(value) ? `"${value.replace(/(["\\])/g, "\\$1")}"` : value;
}

/** `$ARGUMENTS`: the free text as given, or the named arguments in declaration order. */
function argumentText(skill: Skill, args: Readonly<Record<string, string>>): string {
  if (!skill.argumentsDeclared) return args.arguments ?? "";
  const given = skill.arguments.filter((a) => args[a.name] !== undefined && args[a.name] !== "");
  return given.map((a) => quoteWord(args[a.name]!)).join(" ");
}

export function renderSkillMdBody(
  body: string,
  skill: Skill,
  args: Readonly<Record<string, string>>,
  skillDir: string | undefined,
): string {
  const withDir =
    skillDir !== undefined && body.includes(SKILL_DIR_PLACEHOLDER)
      ? body.replaceAll(SKILL_DIR_PLACEHOLDER, () => skillDir)
      : body;
  const text = argumentText(skill, args);
  if (text.trim() === "") return withDir;
  const words = skill.positional ? shellWords(text) : [];
  const declared = new Set(skill.argumentsDeclared ? skill.arguments.map((a) => a.name) : []);
  let read = false;
  const rendered = withDir.replace(
    PLACEHOLDER,
    (match: string, indexed: string | undefined, positional: string | undefined, name: string | undefined) => {
      if (indexed !== undefined || positional !== undefined) {
        if (!skill.positional) return match;
        read = true;
        return words[Number(indexed ?? positional)] ?? "";
      }
      if (name !== undefined) {
        if (!declared.has(name)) return match;
        read = true;
        return args[name] ?? "";
      }
      read = true;
      return text;
    },
  );
  return read ? rendered : `${rendered.replace(/\s+$/, "")}\n\nARGUMENTS: ${text}`;
}
