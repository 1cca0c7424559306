/**
 * The catalog tools (docs/catalog.md): every skill a model may use, reachable through three
 * read-only tools, for clients that take tools but not prompts and for clients that cap how many
 * tools they take. Their definitions never change, so a reload alone never re-lists them.
 */
import { ProtocolError, type CallToolResult, type ReadResourceResult, type Tool } from "@modelcontextprotocol/server";
import { quoted, SkillCentralError } from "../../errors.ts";
import { argumentProblems, problemLines } from "../../invoke/arguments.ts";
import { checkResult } from "../../invoke/limits.ts";
import { loadSkill, modelMayUse, modelSkill, unknownSkill, type LoadedSkill } from "../../invoke/load-skill.ts";
import { publishedSkill } from "../../registry/published-skills.ts";
import type { Registry } from "../../registry/registry.ts";
import { foundSkill, searchIndexOf, searchSkills } from "../../registry/search.ts";
import type { JsonSchema } from "../../skill/json-schema.ts";
import { SKILL_SCHEME } from "../../skill/skill-uri.ts";
import { normaliseTag } from "../../skill/tags.ts";
import { FIND_SKILLS, fitsAsToolName, LOAD_SKILL, RUN_SKILL_TOOL, type ToolsPlan } from "./mode.ts";
import { decodeFindCursor, encodeFindCursor } from "./find-cursor.ts";
import { readSkillFile } from "../skill-files.ts";
import { runTool, TOOL_ANNOTATIONS } from "../skill-tools.ts";

export const FIND_DEFAULT_LIMIT = 10;
export const FIND_MAX_LIMIT = 50;
export const MAX_QUERY_CHARS = 500;
/** A cursor this server issues is about 150 characters (a digest of the search, a score, a skill id). */
const MAX_CURSOR_CHARS = 1000;
/** A table row's description is cut here; `load_skill` has the rest. */
const TABLE_DESCRIPTION_CHARS = 120;

const SKILL_TYPE = { type: "string", enum: ["prompt", "tool"] } as const;

const FIND_INPUT = {
  type: "object",
  properties: {
    query: {
      type: "string",
      maxLength: MAX_QUERY_CHARS,
      description:
        'What you need, in a few words, e.g. "review a pull request" or "k8s manifests". Leave it out to list skills alphabetically.',
    },
    tags: {
      type: "array",
      items: { type: "string", maxLength: 100 },
      maxItems: 20,
      description: "Only skills carrying every one of these tags.",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: FIND_MAX_LIMIT,
      description: `How many skills at most (default ${FIND_DEFAULT_LIMIT}); nextCursor gives the next ones.`,
    },
    cursor: {
      type: "string",
      maxLength: MAX_CURSOR_CHARS,
      description: "The nextCursor of an earlier find_skills result, with the same query and tags: its next page.",
    },
  },
  additionalProperties: false,
} as const;

const FIND_OUTPUT = {
  type: "object",
  properties: {
    skills: {
      type: "array",
      description: "Best match first (alphabetical without a query).",
      items: {
        type: "object",
        properties: {
          name: { type: "string" },
          title: { type: "string" },
          description: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
          type: SKILL_TYPE,
          layer: { type: "string", description: "The layer (folder of skills) it is served from." },
          uri: { type: "string", description: "The skill's skill:// URI." },
        },
        required: ["name", "description", "tags", "type", "layer", "uri"],
      },
    },
    nextCursor: {
      type: "string",
      description: "There are more: pass it as cursor, with the same query and tags, for the next page.",
    },
  },
  required: ["skills"],
} as const;

const LOAD_INPUT = {
  type: "object",
  properties: {
    name: { type: "string", maxLength: 200, description: "The skill's name, as find_skills lists it." },
    // No `type`: text or an object. A type list or anyOf is mangled or refused by some clients'
    // schema converters; an untyped property is taken by all of them.
    arguments: {
      description:
        'For a prompt skill: free text (its one argument, or an Agent Skill\'s $ARGUMENTS), or an object of named arguments, e.g. {"file": "src/a.ts"} (also accepted as JSON text).',
    },
    path: {
      type: "string",
      maxLength: 1000,
      description: "One file of the skill (a path it lists, or its skill:// URI) instead of the skill itself.",
    },
  },
  required: ["name"],
  additionalProperties: false,
} as const;

const FILE_ENTRY = {
  type: "object",
  properties: { path: { type: "string" }, uri: { type: "string" }, size: { type: "integer" } },
  required: ["path", "uri", "size"],
} as const;

const LOAD_OUTPUT = {
  type: "object",
  properties: {
    name: { type: "string" },
    type: SKILL_TYPE,
    uri: { type: "string", description: "What was read: the skill, or the file." },
    text: { type: "string", description: "The rendered prompt, the tool skill's description, or the file's text." },
    files: { type: "array", items: FILE_ENTRY, description: "A skill folder's other files." },
    inputSchema: { type: "object", description: "A tool skill's arguments, for run_skill_tool." },
    path: { type: "string" },
    mimeType: { type: "string" },
    size: { type: "integer" },
  },
  required: ["name", "type", "uri"],
} as const;

const RUN_INPUT = {
  type: "object",
  properties: {
    name: { type: "string", maxLength: 200, description: "The tool skill's name, as find_skills lists it." },
    arguments: { type: "object", description: "Its arguments, as its input schema (from load_skill) describes them." },
  },
  required: ["name"],
  additionalProperties: false,
} as const;

const RUN_OUTPUT = {
  type: "object",
  properties: { name: { type: "string" }, text: { type: "string", description: "What the tool skill returned." } },
  required: ["name", "text"],
} as const;

function toolDefinition(
  name: string,
  title: string,
  description: string,
  inputSchema: object,
  outputSchema: object,
): Tool {
  return Object.freeze({
    name,
    title,
    description,
    inputSchema: inputSchema as Tool["inputSchema"],
    outputSchema: outputSchema as NonNullable<Tool["outputSchema"]>,
    annotations: TOOL_ANNOTATIONS,
  });
}

export const FIND_SKILLS_TOOL = toolDefinition(
  FIND_SKILLS,
  "Find skills",
  "Search the team's skills (reusable prompts, checklists and tools) by what you need to do. Returns the best matches with their names; read one with load_skill. Use it before starting a task the team may have a skill for. When there are more, nextCursor gives the next page.",
  FIND_INPUT,
  FIND_OUTPUT,
);

export const LOAD_SKILL_TOOL = toolDefinition(
  LOAD_SKILL,
  "Load a skill",
  "Read a skill by name: a prompt skill comes back rendered with your arguments (follow it as instructions); a tool skill comes back with its input schema, for run_skill_tool. With path, reads one file a skill folder lists (references, templates, scripts).",
  LOAD_INPUT,
  LOAD_OUTPUT,
);

export const RUN_SKILL_TOOL_TOOL = toolDefinition(
  RUN_SKILL_TOOL,
  "Run a tool skill",
  "Run a tool skill by name with its arguments, exactly as if it were called as a tool of its own. For tool skills not listed as tools; find_skills lists them and load_skill shows their arguments.",
  RUN_INPUT,
  RUN_OUTPUT,
);

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** The arguments checked against the tool's input schema, with the messages tool skills give. */
function invalid(schema: object, args: unknown): CallToolResult | undefined {
  const problems = argumentProblems(schema as JsonSchema, args ?? {});
  return problems.length > 0 ? failure(problemLines(problems).join("\n")) : undefined;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

/** `find_skills`: ranked matches as structured content, and the same as a short table, a page at a time. */
export function findSkills(registry: Registry, args: unknown, plan: ToolsPlan): CallToolResult {
  const bad = invalid(FIND_INPUT, args);
  if (bad) return bad;
  const { query, tags, limit, cursor } = (args ?? {}) as {
    query?: string;
    tags?: string[];
    limit?: number;
    cursor?: string;
  };
  const wanted = (tags ?? []).map(normaliseTag).filter((t) => t !== "");
  const searched = query?.trim() ?? "";
  const after = cursor === undefined ? undefined : decodeFindCursor(cursor, searched, wanted);
  if (cursor !== undefined && after === undefined)
    return failure(
      `Invalid cursor for ${FIND_SKILLS}: pass back the nextCursor of an earlier ${FIND_SKILLS} result with the same query and tags, or leave it out to start over`,
    );
  const pageSize = limit ?? FIND_DEFAULT_LIMIT;
  const result = searchSkills(searchIndexOf(registry), {
    ...(query !== undefined && { query }),
    tags: wanted,
    limit: pageSize,
    filter: modelMayUse,
    ...(after && { after }),
  });
  const skills = result.hits.map((h) => foundSkill(h.candidate));
  const following = result.following ?? result.total;
  const last = result.hits.at(-1);
  const nextCursor =
    following > skills.length && last
      ? encodeFindCursor(searched, wanted, { score: last.score, id: last.candidate.skill.id })
      : undefined;
  const structuredContent = { skills, ...(nextCursor !== undefined && { nextCursor }) };
  const asked = [searched ? `"${oneLine(searched, 80)}"` : "", tags?.length ? `tags ${tags.join(", ")}` : ""]
    .filter(Boolean)
    .join(" with ");
  if (skills.length === 0) {
    const text =
      after !== undefined
        ? `No more skills${asked ? ` for ${asked}` : ""}: the last page was the end (${result.total} in all).`
        : asked
          ? `No skill matches ${asked}. Try other or fewer words, or find_skills with no query to list every skill.`
          : "No skills are served.";
    return { content: [{ type: "text", text }], structuredContent };
  }
  const first = result.total - following + 1;
  const range =
    first > 1
      ? `${first}–${first + skills.length - 1} of ${result.total}`
      : result.total > skills.length
        ? `${skills.length} of ${result.total}`
        : String(skills.length);
  const header = `${range} skill${result.total === 1 ? "" : "s"}${asked ? ` for ${asked}` : ""}${searched ? ", best match first" : ""}:`;
  const rows = skills.map(
    (s) => `| ${s.name} | ${s.type} | ${cell(oneLine(s.description, TABLE_DESCRIPTION_CHARS))} |`,
  );
  const how = [`Read a skill with ${LOAD_SKILL} {"name": "<name>"}.`];
  if (skills.some((s) => s.type === "tool")) {
    how.push(
      plan.run
        ? `Run a tool skill with ${RUN_SKILL_TOOL} {"name": "<name>", "arguments": {…}}.`
        : "Tool skills are tools of their own: call them by name.",
    );
  }
  if (nextCursor !== undefined) {
    const again = {
      ...(query !== undefined && { query }),
      ...(tags !== undefined && { tags }),
      ...(limit !== undefined && { limit }),
      cursor: nextCursor,
    };
    how.push(`${following - skills.length} more: ${FIND_SKILLS} ${JSON.stringify(again)} gives the next page.`);
  }
  const text = [header, "", "| name | type | description |", "|---|---|---|", ...rows, "", how.join(" ")].join("\n");
  return { content: [{ type: "text", text }], structuredContent };
}

function describeLoaded(loaded: LoadedSkill, plan: ToolsPlan): CallToolResult {
  switch (loaded.kind) {
    case "prompt": {
      const files =
        loaded.files.length > 0
          ? `\n\n---\nFiles of this skill (read one with ${LOAD_SKILL} {"name": "${loaded.name}", "path": "<path>"}):\n${loaded.files.map((f) => `- ${f.path} (${f.size} bytes) ${f.uri}`).join("\n")}`
          : "";
      return {
        content: [{ type: "text", text: loaded.text + files }],
        structuredContent: {
          name: loaded.name,
          type: "prompt",
          uri: loaded.uri,
          text: loaded.text,
          ...(loaded.files.length > 0 && { files: loaded.files }),
        },
      };
    }
    case "tool": {
      const direct = plan.toolSkills && fitsAsToolName(loaded.name);
      const how = direct
        ? `Call it as the tool "${loaded.name}", or with ${RUN_SKILL_TOOL} {"name": "${loaded.name}", "arguments": {…}}.`
        : `Run it with ${RUN_SKILL_TOOL} {"name": "${loaded.name}", "arguments": {…}}.`;
      const text = `Tool skill "${loaded.name}": ${loaded.description}\n\n${how}\n\nArguments (JSON Schema):\n${JSON.stringify(loaded.inputSchema, null, 2)}`;
      return {
        content: [{ type: "text", text }],
        structuredContent: {
          name: loaded.name,
          type: "tool",
          uri: loaded.uri,
          text: loaded.description,
          inputSchema: loaded.inputSchema,
        },
      };
    }
  }
}

/** A path the skill publishes, given as its path or its `skill://` URI (`./` and `\\` forgiven), or undefined. */
function publishedPath(name: string, path: string): string | undefined {
  let wanted = path.replace(/\\/g, "/");
  const uriPrefix = `${SKILL_SCHEME}${name}/`;
  if (wanted.startsWith(uriPrefix)) {
    try {
      wanted = wanted.slice(uriPrefix.length).split("/").map(decodeURIComponent).join("/");
    } catch {
      return undefined;
    }
  }
  return wanted.replace(/^(\.\/)+/, "");
}

/**
 * One file a skill publishes (the skills extension's `skill://<name>/<path>`), read exactly as
 * `resources/read` reads it: looked up among the published files (never joined onto the disk),
 * served only if still the bytes its digest promises, text or a base64 blob by the same rules.
 */
function loadSkillFile(registry: Registry, name: string, path: string): CallToolResult {
  const candidate = modelSkill(registry, name);
  if (candidate.skill.type === "tool")
    return failure(`"${name}" is a tool skill: it has no files (${LOAD_SKILL} without "path" shows its arguments)`);
  const published = publishedSkill(registry, name);
  const files = published?.files ?? [];
  const wanted = publishedPath(name, path);
  const file = wanted === undefined ? undefined : published?.byPath.get(wanted);
  if (!file) {
    const listed = files.map((f) => f.path);
    const shown = listed.slice(0, 20).join(", ") + (listed.length > 20 ? `, … (${listed.length} in all)` : "");
    return failure(
      `No file "${quoted(path)}" in skill "${name}"; its files: ${shown || "none (it is being reloaded)"}`,
    );
  }
  let content: ReadResourceResult["contents"][number];
  try {
    content = readSkillFile(registry, file.uri).contents[0]!;
  } catch (error) {
    if (error instanceof ProtocolError) return failure(`Cannot read "${file.path}" of "${name}": ${error.message}`);
    throw error;
  }
  const mimeType = content.mimeType ?? "application/octet-stream";
  const structured = { name, type: "prompt", uri: file.uri, path: file.path, mimeType, size: file.size };
  if ("text" in content) {
    checkResult(content.text);
    return {
      content: [{ type: "text", text: content.text }],
      structuredContent: { ...structured, text: content.text },
    };
  }
  checkResult(content.blob);
  return {
    content: [{ type: "resource", resource: { uri: file.uri, mimeType, blob: content.blob } }],
    structuredContent: structured,
  };
}

/** `load_skill`: rendered, described, or one file; problems (an unknown name, a missing argument) are tool errors. */
export function loadSkillTool(registry: Registry, args: unknown, plan: ToolsPlan): CallToolResult {
  const bad = invalid(LOAD_INPUT, args);
  if (bad) return bad;
  const { name, arguments: skillArgs, path } = args as { name: string; arguments?: unknown; path?: string };
  try {
    if (path !== undefined && path !== "") return loadSkillFile(registry, name, path);
    return describeLoaded(loadSkill(registry, name, skillArgs), plan);
  } catch (error) {
    if (error instanceof SkillCentralError && error.code !== "limit-exceeded") return failure(error.message);
    throw error;
  }
}

/** `run_skill_tool`: the same call, validation and messages as `tools/call` of that tool skill. */
export async function runSkillTool(registry: Registry, args: unknown): Promise<CallToolResult> {
  const bad = invalid(RUN_INPUT, args);
  if (bad) return bad;
  const { name, arguments: toolArgs } = args as { name: string; arguments?: unknown };
  const candidate = registry.get(name);
  if (!candidate || !modelMayUse(candidate))
    return failure(unknownSkill(registry, name, "tool skill", registry.ofType("tool")).message);
  if (candidate.skill.type !== "tool")
    return failure(`"${name}" is a prompt skill, not a tool skill: read it with ${LOAD_SKILL} {"name": "${name}"}`);
  const result = await runTool(registry, name, toolArgs ?? {});
  if (result.isError) return result;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return { ...result, structuredContent: { name, text } };
}
