/** The `SKILL.md` a YAML prompt skill is published as, so a host sees one catalog whatever the format. */
import type { Skill } from "../skill.ts";

/**
 * Characters a YAML double-quoted scalar should not carry raw: DEL and the C1 controls (not
 * printable in YAML), the Unicode line and paragraph separators (line breaks to some readers) and
 * the byte-order mark. JSON already escapes the C0 controls, `"` and `\`.
 */
const UNPRINTABLE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

/**
 * `text` as a YAML double-quoted scalar on one line. JSON's string syntax is YAML's, so every
 * YAML reader (the `yaml` package, the SDK's frontmatter subset) reads back exactly `text`, and
 * a name like `true`, `null` or `123` stays a string.
 */
export function yamlQuoted(text: string): string {
  return JSON.stringify(text).replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export interface SynthesisedFrontmatter {
  name: string;
  description: string;
  metadata: Record<string, string>;
  [key: string]: unknown;
}

export interface SynthesisedSkillMd {
  /** The whole file: frontmatter, then the body. */
  text: string;
  /** The frontmatter as data: what the file's YAML reads as, key for key. */
  frontmatter: SynthesisedFrontmatter;
}

/**
 * The `SKILL.md` a YAML prompt skill is published as, so that a host sees one catalog whatever
 * format a skill was written in. Deterministic: the same skill, template and layer give the same
 * bytes, so the digest changes exactly when one of them does.
 *
 * - `name`: the id; `description`: the description.
 * - `metadata` (text values, as the Agent Skills format wants): `tags` (space-separated, as
 *   `convert` writes them), `version` and `title` when the skill has them, and always `layer`,
 *   the layer it is served from.
 * - The body: the prompt template exactly as written. A host loads it as instructions and has no
 *   arguments to fill in; `prompts/get` is where the template is rendered.
 */
export function synthesiseSkillMd(skill: Skill, template: string | undefined, layer: string): SynthesisedSkillMd {
  const metadata: Record<string, string> = {};
  if (skill.tags.length > 0) metadata.tags = skill.tags.join(" ");
  if (skill.version !== undefined) metadata.version = skill.version;
  if (skill.title !== undefined) metadata.title = skill.title;
  metadata.layer = layer;
  const lines = [
    `name: ${yamlQuoted(skill.id)}`,
    `description: ${yamlQuoted(skill.description)}`,
    "metadata:",
    ...Object.entries(metadata).map(([key, value]) => `  ${key}: ${yamlQuoted(value)}`),
  ];
  return {
    text: `---\n${lines.join("\n")}\n---\n${template ?? ""}`,
    frontmatter: { name: skill.id, description: skill.description, metadata },
  };
}
