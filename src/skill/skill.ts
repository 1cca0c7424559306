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

/** A file of a skill folder, `SKILL.md` included: what a host verifies a read against. */
export interface SkillFile {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  size: number;
  /** Lowercase hex SHA-256 of the file's bytes. */
  sha256: string;
  /** Which version of the file the digest is of (a reload re-hashes only files whose stamp changed). */
  mtimeMs: number;
  ino: number;
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
  /**
   * Agent Skills: every file of the folder that is published, `SKILL.md` first; absent when the
   * folder's files were refused. Not the examples file, nor a hidden name (see below).
   */
  files?: readonly SkillFile[];
  /** Agent Skills: the `examples.yaml` read by `skill-central test`, recorded so a change to it reloads the skill; never published. */
  examplesFile?: SkillFile;
  /** Agent Skills: hidden names left out of the skill (`.DS_Store`, `.git/`), for `show` and `validate` to name. */
  leftOut?: readonly string[];
  /** Agent Skills: `user-invocable: false` — not listed as a prompt (still resolvable, and shown by `show`). */
  hidden?: boolean;
  /** Agent Skills: `disable-model-invocation: true` — only a person may invoke it; never offered to a model. */
  modelInvocable?: boolean;
  /**
   * Agent Skills: whether `$N` and `$ARGUMENTS[N]` are placeholders (the skill declares
   * `arguments` or `argument-hint`, or its body uses `$ARGUMENTS`); elsewhere they are text.
   */
  positional?: boolean;
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
