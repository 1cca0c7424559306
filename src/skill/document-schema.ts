import { Type, type Static } from "typebox";
import { Compile } from "typebox/compile";

const ArgumentDefinition = Type.Object({
  name: Type.String({ minLength: 1, pattern: "^[A-Za-z_][A-Za-z0-9_-]*$" }),
  description: Type.Optional(Type.String()),
  required: Type.Optional(Type.Boolean()),
  /** Values the argument accepts; clients complete from them. */
  enum: Type.Optional(Type.Array(Type.String())),
});

const Example = Type.Object({
  arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  expect: Type.Optional(Type.String()),
  contains: Type.Optional(Type.Array(Type.String())),
  error: Type.Optional(Type.String()),
});

/** The skill file as written. `id` rules and templates are checked separately, with better messages. */
export const SkillDocument = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  description: Type.String({ minLength: 1 }),
  type: Type.Union([Type.Literal("prompt"), Type.Literal("tool")]),
  tags: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  arguments: Type.Optional(Type.Array(ArgumentDefinition)),
  prompt: Type.Optional(Type.String()),
  inputSchema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  version: Type.Optional(Type.String()),
  examples: Type.Optional(Type.Array(Example)),
});

export type SkillDocument = Static<typeof SkillDocument>;
export type ArgumentDefinition = Static<typeof ArgumentDefinition>;
export type SkillExample = Static<typeof Example>;

export const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(SkillDocument.properties));

let validator: ReturnType<typeof Compile<typeof SkillDocument>> | undefined;

/**
 * Compiled on first use, once per process, shared by every file. Not at import: a start where
 * every file comes from the parse cache never needs it, and compiling is a few milliseconds on
 * the path to the first answer.
 */
export function skillDocumentValidator(): ReturnType<typeof Compile<typeof SkillDocument>> {
  return (validator ??= Compile(SkillDocument));
}
