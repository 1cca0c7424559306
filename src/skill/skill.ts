/** A skill as every layer above the formats sees it: its arguments, examples, files and content, whatever it was written in. */
import type { Diagnostic } from "../diagnostics.ts";
import type { JsonSchema } from "./json-schema.ts";

export type SkillType = "prompt" | "tool";

export interface SkillArgument {
  name: string;
  description?: string;
  required: boolean;
  /** Allowed values, when the author listed them. */
  enum?: string[];
}

/** An inline example: the arguments of one call and what it must produce. */
export interface SkillExample {
  arguments?: Record<string, unknown>;
  expect?: string;
  contains?: string[];
  error?: string;
  /** Keys that are not fields of an example (`expcet`): with no assertion beside them, the example fails instead of passing. */
  unknownFields?: string[];
}

/** The two ways a skill is written: our YAML file, or an Agent Skills folder (`SKILL.md`). */
export type SkillFormat = "yaml" | "skill-md";

/** A published file of a skill folder, `SKILL.md` included: what a host verifies a read against. */
export interface SkillFile {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  size: number;
  /** Lowercase hex SHA-256 of the file's bytes. */
  sha256: string;
}

/** A file of a skill folder by name and version (its stamp), without its bytes: the examples file. */
export interface FileVersion {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

/** A skill folder's walk: which of its files are published, which are left out, and what it ran into. */
export interface FolderWalk {
  /** Relative paths of the published files, `SKILL.md` first (not the examples file); none when refused. */
  names: readonly string[];
  /** Hidden names left out of the skill (`.DS_Store`, `.git/`), for `show` and `validate` to name. */
  leftOut: readonly string[];
  /** Links and special files left out, unreadable folders, the file-count limit. */
  diagnostics: readonly Diagnostic[];
  /** Why the files are refused (over the file-count limit), if they are. */
  refused?: string;
}

/**
 * A skill folder's published files: their names, sizes and digests. Not part of the load: a start
 * reads only `SKILL.md`, and the folder is walked and its files hashed when first asked for
 * (`skills/list`, a file's read, `show`) or while the server is idle, then kept by file version.
 */
export interface FolderFiles {
  /** The folder's walk, made on the first call (of this or `read`); the same answer after. */
  walk(): FolderWalk;
  /**
   * Every published file that can be read, `SKILL.md` first, or why the folder's files are
   * refused (over the file-count or size limit). Worked out on the first call; the same answer after.
   */
  read(): { files: readonly SkillFile[] } | { refused: string };
  /** Whether `read` has been answered (a client may have been given these digests). */
  readonly known: boolean;
  /** A file was found no longer to match its digest: the skill is reloaded. */
  stale(): void;
}

/**
 * A skill as listed and resolved: validated, normalised, everything derivable derived. What is
 * needed only when a skill is used (its template and examples) is its `SkillContent`, kept
 * apart so that thousands of skills can be listed without holding every body in memory.
 */
export interface Skill {
  id: string;
  /** Human title (`name:` in the file); the MCP `title`. */
  title?: string;
  description: string;
  type: SkillType;
  /** Trimmed, lowercase, de-duplicated, in the order written. */
  tags: readonly string[];
  /** As declared, or derived from the template's variables (all optional) when none are. */
  arguments: readonly SkillArgument[];
  argumentsDeclared: boolean;
  /** Tools only: as authored, or derived from `arguments` (string properties). */
  inputSchema?: JsonSchema;
  version?: string;
  /** The body's Markdown headings, for search (see headings.ts); absent when it has none. */
  headings?: readonly string[];
  /** How many inline examples the skill has. */
  exampleCount: number;
  /** Absent means "yaml". */
  format?: SkillFormat;
  /** Agent Skills: the frontmatter as written (YAML turned to JSON, key for key). */
  frontmatter?: Record<string, unknown>;
  /** Agent Skills: the `examples.yaml` read by `skill-central test`, recorded so a change to it reloads the skill; never published. */
  examplesFile?: FileVersion;
  /** Agent Skills: `user-invocable: false` — not listed as a prompt (still resolvable, and shown by `show`). */
  hidden?: boolean;
  /** Agent Skills: `disable-model-invocation: true` — only a person may invoke it; never offered to a model. */
  modelInvocable?: boolean;
  /**
   * Agent Skills: whether `$N` and `$ARGUMENTS[N]` are placeholders (the skill declares
   * `arguments` or `argument-hint`, or its body uses `$ARGUMENTS`); elsewhere they are text.
   */
  positional?: boolean;
  /**
   * Being retired, with the author's message (`deprecated:`; `metadata.deprecated` in SKILL.md):
   * the served description leads with it and each use's result carries it once.
   */
  deprecated?: string;
  /** `enabled: false` (`metadata.enabled: "false"`): opt-in, served only where a config's `enable` lists its id. */
  optIn?: boolean;
}

/** What using a skill needs beyond its listing. */
export interface SkillContent {
  /** A prompt's text, or a tool's result template (absent: the tool returns its arguments as JSON). */
  template?: string;
  examples: readonly SkillExample[];
}

/** Where a skill's content is read from on use (memory, the start-up index or the file). */
export interface ContentSource {
  /**
   * The content. Throws `SkillCentralError("content-unavailable")` when it can no longer be had
   * (the file changed and broke before it was ever read).
   */
  read(): SkillContent;
}

/** What a skill is to a person reading a list or a count: a YAML prompt or tool, or an Agent Skills folder. */
export type SkillKind = "prompt" | "tool" | "folder";

/** What a deprecated skill's served description starts with. */
export function deprecationNotice(id: string, message: string): string {
  return `Deprecated: ${message.trim() || `the skill "${id}" is being retired`}`;
}

/** The description as served: a deprecated skill's notice first, so a client that cuts descriptions keeps it. */
export function servedDescription(id: string, description: string, deprecated: string | undefined): string {
  return deprecated === undefined ? description : `[${deprecationNotice(id, deprecated)}] ${description}`;
}

export function skillKind(skill: Skill): SkillKind {
  return skill.format === "skill-md" ? "folder" : skill.type;
}
