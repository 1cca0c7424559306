import { dirname } from "node:path";
import { quoted, SkillCentralError } from "../errors.ts";
import type { Candidate, Registry } from "../registry/registry.ts";
import type { SkillFile } from "../skill/skill.ts";
import { SKILL_MD, SKILL_SCHEME, skillUri } from "../skill/skill-uri.ts";
import { readFolderFile } from "../storage/folder-file.ts";
import { nearest } from "../suggest.ts";
import { checkResult, LIMITS, resultTooLarge } from "./limits.ts";
import { renderPrompt } from "./render-prompt.ts";
import { shellWords } from "./skill-md-body.ts";

/**
 * `load_skill`: a skill as a model reads it through tools. A prompt skill comes back rendered,
 * exactly as `prompts/get` renders it, with a folder's other files listed as `skill://` URIs; a
 * tool skill comes back as its description and input schema; `path` reads one recorded file of
 * a folder, verified against its recorded size and digest (the path is looked up among the
 * recorded files, never joined onto the disk).
 */

export interface FileEntry {
  path: string;
  uri: string;
  size: number;
}

export type LoadedSkill =
  | { kind: "prompt"; name: string; uri: string; text: string; files: FileEntry[] }
  | { kind: "tool"; name: string; uri: string; description: string; inputSchema: Record<string, unknown> }
  | { kind: "file"; name: string; uri: string; path: string; mimeType: string; size: number; text?: string; bytes: Uint8Array };

/** Skills a model may see: everything served except what `disable-model-invocation` reserves for people. */
export function modelMayUse(candidate: Candidate): boolean {
  return candidate.skill.modelInvocable !== false;
}

/**
 * `Unknown skill: "x"` with the three nearest names among `among` (by default every skill a
 * model may use).
 */
export function unknownSkill(registry: Registry, name: string, what = "skill", among: readonly Candidate[] = registry.served()): SkillCentralError {
  const names = nearest(
    name,
    among.filter(modelMayUse).map((c) => c.skill.id),
  );
  const hint = names.length > 0 ? ` Nearest names: ${names.join(", ")}.` : ` No ${what}s are served.`;
  return new SkillCentralError("unknown-skill", `Unknown ${what}: "${quoted(name)}".${hint} find_skills searches them all.`);
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
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
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
      return Object.fromEntries(skill.arguments.flatMap((a, i) => (words[i] === undefined ? [] : [[a.name, words[i]!]])));
    }
    if (skill.arguments.length === 0) throw new SkillCentralError("invalid-arguments", `"${skill.id}" takes no arguments`);
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

/** A recorded file of the skill, by its path in the folder or by its `skill://` URI. */
function recordedFile(candidate: Candidate, path: string): SkillFile | undefined {
  const files = candidate.skill.files ?? [];
  let wanted = path.replace(/\\/g, "/");
  const uriPrefix = `${SKILL_SCHEME}${candidate.skill.id}/`;
  if (wanted.startsWith(uriPrefix)) {
    try {
      wanted = wanted.slice(uriPrefix.length).split("/").map(decodeURIComponent).join("/");
    } catch {
      return undefined;
    }
  }
  wanted = wanted.replace(/^(\.\/)+/, "");
  return files.find((f) => f.path === wanted);
}

function mimeTypeOf(path: string, isText: boolean): string {
  // Bun knows the common extensions; looking one up reads nothing.
  const type = Bun.file(path).type.split(";")[0]!.trim();
  if (path.toLowerCase().endsWith(".md")) return "text/markdown";
  if (isText && (type === "" || type === "application/octet-stream")) return "text/plain";
  return type === "" ? "application/octet-stream" : type;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function readFile(candidate: Candidate, path: string): LoadedSkill {
  const skill = candidate.skill;
  if (skill.format !== "skill-md") {
    throw new SkillCentralError("invalid-arguments", `"${skill.id}" is a single YAML file: only Agent Skills folders have files to read`);
  }
  const file = recordedFile(candidate, path);
  if (!file) {
    const listed = (skill.files ?? []).map((f) => f.path);
    const shown = listed.slice(0, 20).join(", ") + (listed.length > 20 ? `, … (${listed.length} in all)` : "");
    throw new SkillCentralError("invalid-arguments", `No file "${quoted(path)}" in skill "${skill.id}"; its files: ${shown || "none"}`);
  }
  const read = readFolderFile(dirname(candidate.path), file);
  if (!read.ok) throw new SkillCentralError("content-unavailable", `Cannot read "${file.path}" of "${skill.id}": ${read.message}`);
  const text = decodeText(read.bytes);
  // Bytes travel as base64 (4 characters per 3 bytes): bounded like any other result.
  const base64Chars = Math.ceil(read.bytes.length / 3) * 4;
  if (text === undefined && base64Chars > LIMITS.resultChars) throw resultTooLarge(base64Chars);
  return {
    kind: "file",
    name: skill.id,
    uri: skillUri(skill.id, file.path),
    path: file.path,
    mimeType: mimeTypeOf(file.path, text !== undefined),
    size: file.size,
    ...(text !== undefined && { text: checkResult(text) }),
    bytes: read.bytes,
  };
}

/**
 * The skill `name` for a model: rendered, described, or one of its files. Throws
 * `SkillCentralError` with the message to show (an unknown name lists the nearest ones).
 */
export function loadSkill(registry: Registry, name: string, args?: unknown, path?: string): LoadedSkill {
  const candidate = registry.get(name);
  if (!candidate || !modelMayUse(candidate)) throw unknownSkill(registry, name);
  const skill = candidate.skill;
  if (path !== undefined && path !== "") return readFile(candidate, path);
  if (skill.type === "tool") {
    return { kind: "tool", name: skill.id, uri: skillUri(skill.id), description: skill.description, inputSchema: skill.inputSchema ?? { type: "object" } };
  }
  const rendered = renderPrompt(registry, name, promptArguments(candidate, args));
  const files = (skill.files ?? []).filter((f) => f.path !== SKILL_MD).map((f) => ({ path: f.path, uri: skillUri(skill.id, f.path), size: f.size }));
  return { kind: "prompt", name: skill.id, uri: skillUri(skill.id), text: rendered.text, files };
}
