/** What `render` warns of in the arguments it was given before it prints a result the user may not have meant. */
import type { Diagnostic } from "../../diagnostics.ts";
import { composedSkills, emptyRequiredArguments } from "../../invoke/compose.ts";
import type { Registry } from "../../registry/registry.ts";
import { isPlainObject } from "../../skill/json-schema.ts";
import type { Skill } from "../../skill/skill.ts";
import { parseTagList } from "../../skill/tags.ts";
import { closest } from "../../suggest.ts";
import { argumentLines } from "./arguments.ts";

/**
 * What `render` should say about the arguments it was given before it prints a result that looks
 * fine but is not what the user meant: a name the skill does not take (a typo renders nothing and
 * fails nothing), and a required argument left empty where nothing enforces it (the skills that
 * `skills:compose` joins, and an empty string given to a prompt). Warnings only: the render goes
 * on, exactly as the server would answer.
 */
export function argumentWarnings(
  registry: Registry,
  id: string,
  skill: Skill | undefined,
  args: Readonly<Record<string, unknown>>,
): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  const warn = (code: string, message: string, hint: string) =>
    warnings.push({ severity: "warning", code, message, hint });
  const unknownNames = (known: readonly string[], unknown: (name: string) => string, onlyWithSuggestion = false) => {
    for (const name of Object.keys(args)) {
      if (known.includes(name)) continue;
      const meant = closest(name, known);
      if (onlyWithSuggestion && !meant) continue;
      warn(
        "unknown-argument",
        `${unknown(name)}, so its value is not used`,
        meant
          ? `did you mean "${meant}"?`
          : known.length > 0
            ? `the arguments: ${known.join(", ")}`
            : "it takes no arguments",
      );
    }
  };
  const notOf = (owner: string) => (name: string) => `${owner} has no argument named "${name}"`;

  if (!skill) {
    // skills:compose: `tags` picks the skills; every other argument reaches each of them.
    const tags = typeof args.tags === "string" ? parseTagList(args.tags) : [];
    const skills = composedSkills(registry, tags);
    if (skills.length === 0) return warnings;
    const { tags: _, ...rest } = args;
    const known = [...new Set(skills.flatMap((c) => c.skill.arguments.map((a) => a.name)))];
    const ids = skills.map((c) => c.skill.id).join(", ");
    unknownNames(["tags", ...known], (name) => `no composed skill (${ids}) has an argument named "${name}"`);
    for (const { skill: owner, argument } of emptyRequiredArguments(skills, rest)) {
      warn(
        "empty-required-argument",
        `"${owner}" requires "${argument}", which is empty, so its section renders without it`,
        `pass --arg ${argument}=…`,
      );
    }
    return warnings;
  }

  if (skill.type === "tool") {
    // A schema that admits other names (patternProperties, an additionalProperties schema) makes
    // any name plausible. One that forbids them reports the name as an error: the warning then
    // only adds the name that was probably meant.
    const schema = skill.inputSchema;
    const names = isPlainObject(schema?.properties) ? Object.keys(schema.properties) : [];
    if (schema?.additionalProperties === false) unknownNames(names, notOf(`"${id}"`), true);
    else if (
      schema?.patternProperties === undefined &&
      (schema?.additionalProperties === undefined || schema.additionalProperties === true)
    )
      unknownNames(names, notOf(`"${id}"`));
    return warnings;
  }
  unknownNames(
    argumentLines(skill).map((a) => a.name),
    notOf(`"${id}"`),
  );
  for (const a of skill.arguments) {
    if (a.required && args[a.name] === "")
      warn("empty-required-argument", `"${id}" requires "${a.name}", and it is empty`, `pass --arg ${a.name}=…`);
  }
  return warnings;
}
