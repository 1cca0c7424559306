/** `skill-central init`: a project's `skill-central.yaml` and a `.skills/` tree with example skills that pass. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_CONFIG_NAMES } from "../config/config-file.ts";
import { createFile } from "./support/scaffold.ts";
import { command, EXIT_OK, json } from "./support/command.ts";

const CONFIG = `# skill-central configuration: the layers this project serves skills from.
# Each layer is a folder of skill files; when two layers define the same id, the higher priority wins.
# See skill-central's docs/layers.md.
layers:
  - name: team
    path: ./.skills/team        # skills shared across the team's projects
    priority: 50
  - name: project
    path: ./.skills/project     # this project's own skills, and its overrides of team skills
    priority: 100
# builtin: false                # uncomment to stop serving the built-in skills
`;

const EXAMPLE_PROMPT = `# A prompt skill: IDEs list it as a prompt and render the template with the user's arguments.
id: explain-change
name: Explain a change
description: Explain a code change for a reviewer or a newcomer
type: prompt
tags: [docs, onboarding]
arguments:
  - name: change
    description: The diff, commit or code to explain
    required: true
  - name: audience
    description: Who the explanation is for, e.g. "a new team member"
    required: false
prompt: |
  Explain the change below{{#if audience}} for {{audience}}{{/if}}.
  Start with what it does and why, then walk through the parts that matter.

  {{change}}
# Inline examples: \`skill-central test\` runs them; the server ignores them.
examples:
  - arguments: { change: "- retries: 3\\n+ retries: 5", audience: a new team member }
    contains: ["for a new team member", "+ retries: 5"]
  - arguments: {}
    error: 'Missing required argument: "change"'
`;

const EXAMPLE_TOOL = `# A tool skill: the model calls it; arguments are checked against inputSchema, then the
# template renders the result.
id: branch-name
name: Branch name
description: Build a git branch name from a change type, an optional ticket and a short slug
type: tool
tags: [git, conventions]
inputSchema:
  type: object
  properties:
    type: { type: string, enum: [feat, fix, chore, docs], description: The kind of change }
    ticket: { type: string, pattern: "^[A-Z]+-[0-9]+$", description: "Ticket key, e.g. SC-42" }
    slug: { type: string, pattern: "^[a-z0-9]+(-[a-z0-9]+)*$", description: Lowercase words joined by hyphens }
  required: [type, slug]
prompt: "{{type}}/{{#if ticket}}{{ticket}}-{{/if}}{{slug}}"
examples:
  - arguments: { type: feat, ticket: SC-42, slug: add-login }
    expect: feat/SC-42-add-login
  - arguments: { type: fix, slug: empty-input }
    expect: fix/empty-input
  - arguments: { type: feat }
    error: 'Missing required argument: "slug"'
`;

export const spec = command({
  name: "init",
  summary: "Scaffold skill-central.yaml and a .skills/ tree with example skills",
  usage: "init [--json]",
  description:
    "Creates skill-central.yaml (two layers: team at priority 50, project at 100), .skills/team/explain-change.yaml\n" +
    "(a prompt) and .skills/project/branch-name.yaml (a tool), each with inline examples. Never overwrites:\n" +
    "files that exist are left alone and reported.",
  options: {},
  examples: ["skill-central init", "skill-central init --cwd ../other-project"],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const created: string[] = [];
    const kept: string[] = [];
    const existingConfig = PROJECT_CONFIG_NAMES.find((name) => existsSync(join(ctx.cwd, name)));
    if (existingConfig) kept.push(existingConfig);
    else
      (createFile(join(ctx.cwd, PROJECT_CONFIG_NAMES[0]), CONFIG) === "created" ? created : kept).push(
        PROJECT_CONFIG_NAMES[0],
      );
    for (const [path, text] of [
      [".skills/team/explain-change.yaml", EXAMPLE_PROMPT],
      [".skills/project/branch-name.yaml", EXAMPLE_TOOL],
    ] as const) {
      (createFile(join(ctx.cwd, path), text) === "created" ? created : kept).push(path);
    }
    if (ctx.json) {
      json(ctx, { created, kept });
      return EXIT_OK;
    }
    const { green, dim } = ctx.colours;
    let text = created.map((p) => `${green("created")}     ${p}\n`).join("");
    text += kept.map((p) => `${dim("left alone")}  ${p} (already exists)\n`).join("");
    if (existingConfig)
      text += `note: ${existingConfig} was already there; check that it declares the .skills/team and .skills/project layers\n`;
    text += `\nNext: skill-central list, skill-central test, skill-central new <id> --type prompt|tool\n`;
    ctx.out(text);
    return EXIT_OK;
  },
});
