/**
 * `load_skill`: a skill as a model reads it through tools. A prompt skill comes back rendered,
 * exactly as `prompts/get` renders it, with the other files it publishes (the skills extension's
 * `skill://` files) listed; a tool skill comes back as its description and input schema. One
 * file of a skill (`path`) is read by the MCP adapter, as `resources/read` reads it.
 */
import { quoted, SkillCentralError } from "../errors.ts";
import { publishedSkill } from "../registry/published-skills.ts";
import type { Candidate, Registry } from "../registry/registry.ts";
import { SKILL_MD, skillUri } from "../skill/skill-uri.ts";
import { nearest } from "../suggest.ts";
import { renderPrompt } from "./render-prompt.ts";
import { shellWords } from "./skill-md-body.ts";

export interface FileEntry {
  path: string;
  uri: string;
  size: number;
}

export type LoadedSkill =
  | { kind: "prompt"; name: string; uri: string; text: string; files: FileEntry[] }
  | { kind: "tool"; name: string; uri: string; description: string; inputSchema: Record<string, unknown> };

/** Skills a model may see: everything served except what `disable-model-invocation` reserves for people. */
export function modelMayUse(candidate: Candidate): boolean {
  return candidate.skill.modelInvocable !== false;
}

/**
 * `Unknown skill: "x"` with the three nearest names among `among` (by default every skill a
 * model may use).
 */
export function unknownSkill(
  registry: Registry,
  name: string,
  what = "skill",
  among: readonly Candidate[] = registry.served(),
): SkillCentralError {
  const names = nearest(
    name,
    among.filter(modelMayUse).map((c) => c.skill.id),
  );
  const hint = names.length > 0 ? ` Nearest names: ${names.join(", ")}.` : ` No ${what}s are served.`;
  return new SkillCentralError(
    "unknown-skill",
    `Unknown ${what}: "${quoted(name)}".${hint} find_skills searches them all.`,
  );
}

/** Prompt arguments are text; a model may send a number or a flag, which reads as its text. */
function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `arguments` as the free text of a one-argument prompt (the usual Agent Skill, or a YAML prompt
 * with one argument), as shell-like words of an Agent Skill's declared arguments in order, or as
 * an object of named arguments.
 */
export function promptArguments(candidate: Candidate, args: unknown): Record<string, string> {
  const skill = candidate.skill;
  if (args === undefined || args === null) return {};
  if (typeof args === "string") {
    if (skill.arguments.length === 1) return { [skill.arguments[0]!.name]: args };
    if (args.trim() === "") return {};
    // Named arguments as JSON text: what a client whose schema converter dropped the object sends.
    const parsed = jsonObject(args);
    if (parsed !== undefined) return promptArguments(candidate, parsed);
    if (skill.format === "skill-md" && skill.argumentsDeclared) {
      const words = shellWords(args);
      return Object.fromEntries(
        skill.arguments.flatMap((a, i) => (words[i] === undefined ? [] : [[a.name, words[i]!]])),
      );
    }
    if (skill.arguments.length === 0)
      throw new SkillCentralError("invalid-arguments", `"${skill.id}" takes no arguments`);
    const names = skill.arguments.map((a) => a.name);
    throw new SkillCentralError(
      "invalid-arguments",
      `"${skill.id}" takes named arguments (${names.join(", ")}): pass "arguments" as an object, e.g. {"${names[0]}": "…"}`,
    );
  }
  if (typeof args !== "object" || Array.isArray(args)) {
    throw new SkillCentralError("invalid-arguments", `"arguments" must be text or an object of named arguments`);
  }
  const named: Record<string, string> = {};
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    const text = asText(value);
    if (text !== undefined) named[key] = text;
  }
  return named;
}

/** A skill a model may use, by name; an unknown name throws with the nearest ones. */
export function modelSkill(registry: Registry, name: string): Candidate {
  const candidate = registry.get(name);
  if (!candidate || !modelMayUse(candidate)) throw unknownSkill(registry, name);
  return candidate;
}

/**
 * The skill `name` for a model: rendered or described. Throws `SkillCentralError` with the
 * message to show (an unknown name lists the nearest ones).
 */
export function loadSkill(registry: Registry, name: string, args?: unknown): LoadedSkill {
  const candidate = modelSkill(registry, name);
  const skill = candidate.skill;
  if (skill.type === "tool") {
    return {
      kind: "tool",
      name: skill.id,
      uri: skillUri(skill.id),
      description: skill.description,
      inputSchema: skill.inputSchema ?? { type: "object" },
    };
  }
  const rendered = renderPrompt(registry, name, promptArguments(candidate, args));
  const files = (publishedSkill(registry, name)?.files ?? [])
    .filter((f) => f.path !== SKILL_MD)
    .map((f) => ({ path: f.path, uri: f.uri, size: f.size }));
  return { kind: "prompt", name: skill.id, uri: skillUri(skill.id), text: rendered.text, files };
}
