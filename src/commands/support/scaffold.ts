import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export type WriteOutcome = "created" | "exists";

/**
 * Creates a file (and its folders) only if nothing is there: the exclusive-create flag makes
 * "never overwrite" hold even against a file that appears between a check and the write.
 */
export function createFile(path: string, text: string, overwrite = false): WriteOutcome {
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, text, { flag: overwrite ? "w" : "wx" });
    return "created";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return "exists";
    throw error;
  }
}

/** A commented prompt skill that validates, renders and passes its own examples as written. */
export function promptTemplate(id: string): string {
  return `# ${id}: a prompt skill. IDEs list it as a prompt and render the template below.
# Every field is described in the skill-central README ("Skills").
id: ${id}
# name: A human title some IDEs show
description: Say in one line what this prompt is for (IDEs show it in their prompt list)
type: prompt
# Tags group prompts for skills:compose, e.g. [review, backend].
tags: []
# The arguments the IDE asks for. Without this list, the template's variables become optional arguments.
arguments:
  - name: context
    description: What the user is working on
    required: false
# Handlebars: {{name}} inserts an argument; #if, #unless, #each and #with are the only blocks.
prompt: |
  Replace this line with your instructions.
  {{#if context}}

  Context: {{context}}
  {{/if}}
# Inline examples, run by \`skill-central test\` and \`validate\` (the server ignores them).
# Each has arguments and one of: expect (the exact text), contains (substrings), error (a substring).
examples:
  - arguments: {}
    expect: Replace this line with your instructions.
  - arguments: { context: a failing build }
    contains: ["Context: a failing build"]
`;
}

/** A commented tool skill that validates, renders and passes its own examples as written. */
export function toolTemplate(id: string): string {
  return `# ${id}: a tool skill. The IDE's model calls it with arguments checked against inputSchema,
# and gets the rendered template as the tool's text result.
# Every field is described in the skill-central README ("Skills").
id: ${id}
# name: A human title some IDEs show
description: Say in one line what this tool returns and when to call it
type: tool
tags: []
# JSON Schema (2020-12) for the arguments; every rule is enforced before the template runs.
inputSchema:
  type: object
  properties:
    text:
      type: string
      minLength: 1
      description: Describe each argument; the model reads this
  required: [text]
# The result text (Handlebars). Without a prompt, the tool returns its arguments as JSON.
prompt: "Result for: {{text}}"
# Inline examples, run by \`skill-central test\` and \`validate\` (the server ignores them).
# Each has arguments and one of: expect (the exact text), contains (substrings), error (a substring).
examples:
  - arguments: { text: hello }
    expect: "Result for: hello"
  - arguments: {}
    error: 'Missing required argument: "text"'
`;
}
