import type { JsonSchema } from "./json-schema.ts";
import type { SkillExample } from "./document-schema.ts";

export type SkillType = "prompt" | "tool";

export interface SkillArgument {
  name: string;
  description?: string;
  required: boolean;
  /** Allowed values, when the author listed them. */
  enum?: string[];
}

/** A skill as served: validated, normalised, with everything derivable already derived. */
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
  prompt?: string;
  /** Tools only: as authored, or derived from `arguments` (string properties). */
  inputSchema?: JsonSchema;
  version?: string;
  examples: readonly SkillExample[];
}
