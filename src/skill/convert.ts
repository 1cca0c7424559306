/**
 * `skill-central convert`: a YAML prompt skill as an Agent Skills folder and back, with what did
 * not survive the change of format said rather than dropped silently.
 */
import type { Skill, SkillContent } from "./skill.ts";
import { PLACEHOLDER_OR_SKILL_DIR, SKILL_DIR_PLACEHOLDER } from "./skill-md/placeholders.ts";
import { TAG } from "./template-proof.ts";

/** A converted skill: the files to write (relative to where the skill goes) and what did not survive. */
export interface Conversion {
  files: { path: string; text: string }[];
  /** One line per thing the target format cannot carry, said plainly. */
  lost: string[];
}

/** A YAML double-quoted scalar (JSON's string syntax is one). */
const quote = (text: string) => JSON.stringify(text);

function yamlList(values: readonly string[]): string {
  return `[${values.map((v) => (/^[a-z0-9][a-z0-9_-]*$/i.test(v) ? v : quote(v))).join(", ")}]`;
}

/** A literal block scalar holding `text` exactly (a final newline is kept with `|`, dropped with `|-`). */
function block(key: string, text: string, indent = ""): string {
  const chomp = text.endsWith("\n") ? "|" : "|-";
  const body = text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => (line === "" ? "" : `${indent}  ${line}`))
    .join("\n");
  return `${indent}${key}: ${chomp}\n${body}\n`;
}

function examplesYaml(content: SkillContent): string {
  return `${content.examples.map((e) => `- ${JSON.stringify(e)}`).join("\n")}\n`;
}

/**
 * A YAML prompt skill as an Agent Skills folder. Handlebars has no place in a SKILL.md body:
 * plain `{{name}}` of a declared argument becomes `$name`; anything else stays as written (and
 * is reported). Tools have no SKILL.md form.
 */
export function toSkillMd(skill: Skill, content: SkillContent): Conversion | { refused: string } {
  if (skill.type === "tool")
    return {
      refused: `"${skill.id}" is a tool: the Agent Skills format has prompts only, so a tool has no SKILL.md form`,
    };
  const lost: string[] = [];
  const names = new Set(skill.arguments.map((a) => a.name));
  let blocks = 0;
  const body = (content.template ?? "").replace(TAG, (tag: string, inner: string) => {
    const name = inner.trim();
    if (names.has(name) && /^[A-Za-z_][\w-]*$/.test(name)) return `$${name}`;
    blocks++;
    return tag;
  });
  if (blocks > 0)
    lost.push(
      `${blocks} Handlebars tag(s) other than plain arguments (blocks, paths, helpers) stay in the body as text: a SKILL.md body is not a template`,
    );
  if (skill.title !== undefined)
    lost.push(`the title "${skill.title}" (name:) has no SKILL.md field; it is kept in metadata.title`);
  const described = skill.arguments.filter((a) => a.description || a.required || a.enum);
  if (described.length > 0)
    lost.push(
      `argument descriptions, required flags and enum values (${described.map((a) => a.name).join(", ")}) have no SKILL.md form: arguments become optional names`,
    );
  const metadata: string[] = [];
  if (skill.tags.length > 0) metadata.push(`  tags: ${quote(skill.tags.join(" "))}`);
  if (skill.version !== undefined) metadata.push(`  version: ${quote(skill.version)}`);
  if (skill.title !== undefined) metadata.push(`  title: ${quote(skill.title)}`);
  const frontmatter = [
    `name: ${skill.id}`,
    `description: ${quote(skill.description)}`,
    ...(skill.argumentsDeclared && skill.arguments.length > 0
      ? [`arguments: ${yamlList(skill.arguments.map((a) => a.name))}`]
      : []),
    ...(metadata.length > 0 ? ["metadata:", ...metadata] : []),
  ];
  const files = [{ path: "SKILL.md", text: `---\n${frontmatter.join("\n")}\n---\n${body}` }];
  if (content.examples.length > 0) {
    files.push({ path: "examples.yaml", text: examplesYaml(content) });
    lost.push(
      "examples move to examples.yaml; SKILL.md bodies render without Handlebars, so check them with `skill-central test`",
    );
  }
  return { files, lost };
}

/**
 * An Agent Skills folder as a YAML prompt skill: `$name` and `$ARGUMENTS` become Handlebars
 * tags, literal `{{` is escaped so it stays text; positional `$N`, `${CLAUDE_SKILL_DIR}` and the
 * folder's other files have no YAML form (reported).
 */
/** `files`: a folder skill's published files (their relative paths), which have no place in a YAML skill. */
export function toYaml(skill: Skill, content: SkillContent, files: readonly string[] = []): Conversion {
  const lost: string[] = [];
  const declared = new Set(skill.argumentsDeclared ? skill.arguments.map((a) => a.name) : []);
  let positional = 0;
  let skillDir = 0;
  const escaped = (content.template ?? "").replace(/\{\{/g, "\\{{");
  const prompt = escaped.replace(
    PLACEHOLDER_OR_SKILL_DIR,
    (match: string, indexed: string | undefined, n: string | undefined, name: string | undefined) => {
      if (match === SKILL_DIR_PLACEHOLDER) {
        skillDir++;
        return match;
      }
      if (indexed !== undefined || n !== undefined) {
        if (skill.positional) positional++;
        return match;
      }
      if (name !== undefined) return declared.has(name) ? `{{${name}}}` : match;
      return skill.argumentsDeclared ? match : "{{arguments}}";
    },
  );
  if (positional > 0)
    lost.push(`${positional} positional placeholder(s) ($N, $ARGUMENTS[N]) have no YAML form and stay as text`);
  if (skillDir > 0) lost.push("${CLAUDE_SKILL_DIR} has no YAML form (a YAML skill has no folder) and stays as text");
  const others = files.filter((f) => f !== "SKILL.md" && f !== "examples.yaml" && f !== "examples.yml");
  if (others.length > 0)
    lost.push(`the folder's other files (${others.join(", ")}) have no place in a YAML skill and are not copied`);
  const hostFields = Object.keys(skill.frontmatter ?? {}).filter(
    (k) => !["name", "description", "metadata", "arguments", "argument-hint", "tags", "version"].includes(k),
  );
  if (hostFields.length > 0) lost.push(`frontmatter fields ${hostFields.join(", ")} have no YAML form`);
  const args = skill.argumentsDeclared
    ? skill.arguments.map((a) => `  - name: ${a.name}`)
    : [`  - name: arguments`, `    description: ${quote(skill.arguments[0]?.description ?? "Free text")}`];
  const lines = [
    `id: ${skill.id}`,
    `description: ${quote(skill.description)}`,
    "type: prompt",
    ...(skill.tags.length > 0 ? [`tags: ${yamlList(skill.tags)}`] : []),
    ...(skill.version !== undefined ? [`version: ${quote(skill.version)}`] : []),
    "arguments:",
    ...args,
  ];
  let text = `${lines.join("\n")}\n${block("prompt", prompt)}`;
  if (content.examples.length > 0)
    text += `examples:\n${content.examples.map((e) => `  - ${JSON.stringify(e)}`).join("\n")}\n`;
  return { files: [{ path: `${skill.id}.yaml`, text }], lost };
}
