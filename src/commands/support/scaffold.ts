/** The files `init` and `new` write: skill templates whose examples pass, and writing with a backup beside what was there. */
import { constants, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

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
# Every field is described in skill-central's docs/skills.md.
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
# Every field is described in skill-central's docs/skills.md.
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

/**
 * The first free backup name beside a file: `x.yaml.bak`, then `x.yaml.2.bak`, `x.yaml.3.bak`, …
 * (every name ends in `.bak`, so no layer ever loads one as a skill; a hidden one, in a skill
 * folder, is not published as one of its files either).
 */
function backupCandidate(path: string, n: number, hidden: boolean): string {
  // Inside a skill folder every file is published, except hidden ones: there the backup is `.SKILL.md.bak`.
  const base = hidden ? join(dirname(path), `.${basename(path)}`) : path;
  return n === 1 ? `${base}.bak` : `${base}.${n}.bak`;
}

/** The backup name `replaceFileKeepingBackup` would use now, for telling the user before it runs. */
export function nextBackupPath(path: string, hidden = false): string {
  for (let n = 1; ; n++) if (!existsSync(backupCandidate(path, n, hidden))) return backupCandidate(path, n, hidden);
}

/**
 * Replaces a file the user has, keeping its bytes first: the copy is made with an exclusive
 * create (an earlier backup is never overwritten, even by a run at the same moment), then the new
 * text goes to a temporary file in the same folder that is renamed over the original, so the
 * file is always either the old one or the new one. Returns the backup's path.
 */
export function replaceFileKeepingBackup(path: string, text: string, hidden = false): string {
  let backup: string;
  for (let n = 1; ; n++) {
    backup = backupCandidate(path, n, hidden);
    try {
      copyFileSync(path, backup, constants.COPYFILE_EXCL);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, text, { flag: "wx", mode: statSync(path).mode & 0o7777 });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return backup;
}

/** A commented Agent Skills folder: SKILL.md that validates and renders as written, and its examples file. */
export function skillMdTemplate(id: string): { skillMd: string; examples: string } {
  const title = id
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");
  return {
    skillMd: `---
name: ${id}
description: Say what this skill does and when to use it (hosts show this, and models pick skills by it)
# Only fields of the Agent Skills specification, so \`validate --strict\` passes and every host
# loads it. The text typed after the slash command is $ARGUMENTS in the body. (Claude Code also
# reads \`argument-hint: "[what to work on]"\`, a hint shown there; other hosts may refuse it.)
metadata:
  # Space-separated tags group skills for skills:compose, e.g. "release docs".
  tags: ""
  version: "0.1.0"
---
# ${title}

Replace these lines with the instructions: what to do, step by step, and what good output looks
like. Put long reference material in files under references/ and say here when to read them.

Work on: $ARGUMENTS
`,
    examples: `# Examples for \`skill-central test\` and \`validate\`; other tools ignore this file.
# Each has arguments and one of: expect (the exact text), contains (substrings), error (a substring).
- arguments: { arguments: the login page }
  contains: ["Work on: the login page"]
- arguments: {}
  contains: ["Work on: $ARGUMENTS"]
`,
  };
}
