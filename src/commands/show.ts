/** `skill-central show`: one skill, its arguments and every candidate for its id across the layers. */
import { folderFilesOf, leftOutOf, resolutionView, skillView, type CandidateView } from "../registry/describe.ts";
import { publishedSkillOf } from "../registry/published-skills.ts";
import type { Candidate } from "../registry/registry.ts";
import type { Palette } from "../cli-output/colour.ts";
import { COMPOSE_PROMPT_NAME } from "../invoke/compose.ts";
import { didYouMean } from "../suggest.ts";
import { formatTable } from "../cli-output/table.ts";
import type { LayerProvenance } from "../config/resolve-config.ts";
import { gitOrigin } from "../sources/report.ts";
import { argumentLines, type ArgumentLine } from "./support/arguments.ts";
import { blockLine, type DigestBlock, digestBlockJson, digestBlocks, leftOutText } from "./support/digest-blocks.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, reportLoad, type CommandContext } from "./support/command.ts";
import { visibleLine, visibleText } from "../visible-text.ts";

export function statusText(c: CandidateView): string {
  if (c.status === "shadowed") return `shadowed by ${c.shadowedBy}`;
  if (c.status === "conflicted") return `conflicted with ${(c.conflictsWith ?? []).join(", ")}`;
  return "effective";
}

function argumentRows(lines: readonly ArgumentLine[]): string[][] {
  return lines.map((a) => {
    const kind = [a.type, a.enum && `one of: ${a.enum.join(", ")}`].filter(Boolean).join(", ");
    return [a.name, a.required ? "required" : "optional", kind, a.description ?? ""];
  });
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? "" : `  ${line}`))
    .join("\n");
}

function showCompose(ctx: CommandContext, tags: readonly string[]): number {
  if (ctx.json) {
    json(ctx, { id: COMPOSE_PROMPT_NAME, served: true, builtin: true, tags });
    return EXIT_OK;
  }
  ctx.out(
    `${ctx.colours.bold(COMPOSE_PROMPT_NAME)}  prompt (provided by the server)\n` +
      'Joins every prompt skill whose tags overlap the "tags" argument (comma-separated), lowest priority first.\n\n' +
      `${ctx.colours.bold("Arguments")}\n  tags  required  comma-separated tags; other arguments reach every composed template\n\n` +
      `${ctx.colours.bold("Tags of prompt skills")}\n  ${visibleLine(tags.join(", ")) || "(none)"}\n`,
  );
  return EXIT_OK;
}

export const spec = command({
  name: "show",
  summary: "Show a skill, its arguments and its full resolution chain",
  usage: "show <id> [--json]",
  description:
    'Prints the resolved skill (layer, file, tags, template), the arguments the server checks, and every\ncandidate for the id: layer, file, priority and status (effective / shadowed by X / conflicted with Y).\nAn id withdrawn by a conflict is shown with its chain and exits 1. A version blocked by its\ndigest (block ID --digest D) is named under "Blocked versions", with who, why and its file.',
  options: {},
  examples: ["skill-central show review-pr", "skill-central show commit-conventions --json"],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const id = ctx.args[0]!;
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const { registry } = loaded;
    if (id === COMPOSE_PROMPT_NAME) return showCompose(ctx, registry.tags());
    const resolution = registry.resolution(id);
    const block = loaded.governance?.blocked.get(id);
    if (!resolution && block) {
      ctx.err(
        `error: ${visibleLine(`"${id}" is blocked by ${block.principal} (${block.fingerprint}) at ${new Date(block.at).toISOString()}: ${block.reason}`)}\n  not served anywhere that reads this store; skill-central log --skill ${visibleLine(id)} shows the record\n`,
      );
      return EXIT_FAILURE;
    }
    const digestHeld = digestBlocks(loaded.governance, id);
    if (!resolution && digestHeld.some((b) => b.leftOut.length > 0)) {
      ctx.err(
        `error: ${visibleLine(`"${id}" is not served here: each version of it is blocked by its digest`)}\n${digestBlocksText(digestHeld)}` +
          `  skill-central unblock ${visibleLine(id)} --digest D --reason TEXT --key KEYFILE serves a version again; skill-central log --skill ${visibleLine(id)} shows the record\n`,
      );
      return EXIT_FAILURE;
    }
    if (!resolution) {
      ctx.err(
        `error: ${visibleLine(`unknown skill "${id}"${didYouMean(id, [...registry.resolutions().map((r) => r.id), COMPOSE_PROMPT_NAME])}`)}\n`,
      );
      return EXIT_FAILURE;
    }
    const view = resolutionView(resolution);
    const effective = resolution.effective;
    const args = effective ? argumentLines(effective.skill) : [];
    // A skill from a git layer: the repository, commit and path it was copied from.
    const git = effective && gitOrigin(loaded.config.layers, effective.layer.name, effective.path, ctx.cwd);
    const remote = effective?.layer.provenance;
    if (ctx.json) {
      json(ctx, {
        id,
        served: view.served,
        ...(effective && { skill: skillView(effective, true), arguments: args }),
        ...(git && { git }),
        ...(remote && !remote.commit && { index: remote.url }),
        ...(remote?.signer && { signer: remote.signer }),
        ...(digestHeld.length > 0 && { blockedVersions: digestHeld.map(digestBlockJson) }),
        chain: view.chain,
      });
      return effective ? EXIT_OK : EXIT_FAILURE;
    }
    const { bold, dim, red } = ctx.colours;
    let text = "";
    if (effective) {
      text += effectiveText(effective, args, git, ctx.colours);
    } else {
      text += `${bold(visibleLine(id))}  ${red("not served")}: the files below conflict in their layer; fix or remove one\n`;
    }
    if (digestHeld.length > 0)
      text += `\n${bold("Blocked versions")} ${dim("(block --digest holds back only the version with that digest; others are served)")}\n${digestBlocksText(digestHeld)}`;
    text += `\n${bold("Resolution")} ${dim(`(${view.chain.length} candidate${view.chain.length === 1 ? "" : "s"}, winner first)`)}\n`;
    const rows = [
      ["LAYER", "PRIORITY", "FILE", "STATUS"],
      ...view.chain.map((c) => [c.layer, String(c.priority), c.source, statusText(c)]),
    ];
    text += indent(formatTable(rows));
    ctx.out(text);
    return effective ? EXIT_OK : EXIT_FAILURE;
  },
});

type GitOrigin = ReturnType<typeof gitOrigin>;

/** Each digest block of the skill: the block, then the files it left out. */
function digestBlocksText(blocks: readonly DigestBlock[]): string {
  return blocks.map((b) => `  ${blockLine(b)}\n    ${visibleLine(leftOutText(b))}\n`).join("");
}

/** The served skill: what it is, where it comes from, its arguments, files and template. */
function effectiveText(effective: Candidate, args: ArgumentLine[], git: GitOrigin, colours: Palette): string {
  const { bold, dim } = colours;
  const { skill } = effective;
  // The skill's own words (title, description, template) are shown with their controls made visible.
  let text = `${bold(visibleLine(skill.id))}  ${skill.type}${skill.title ? `  ${dim(visibleLine(skill.title))}` : ""}\n${visibleText(skill.description)}\n\n`;
  const skillMd = skill.format === "skill-md";
  text += indent(formatTable(skillFacts(effective, git)));
  const derived = skill.type === "prompt" && !skill.argumentsDeclared && args.length > 0;
  text += `\n${bold("Arguments")}${derived ? dim(skillMd ? " (one free-text argument, as typed after the command)" : " (from the template's variables)") : ""}\n`;
  text += args.length > 0 ? indent(formatTable(argumentRows(args))) : "  (none)\n";
  if (effective.files) {
    const files = folderFilesOf(effective);
    text += `\n${bold("Files")} ${dim(`(${files.length}, with the digest a host verifies each read against)`)}\n`;
    text += indent(
      formatTable([["PATH", "SIZE", "SHA-256"], ...files.map((f) => [f.path, String(f.size), f.sha256.slice(0, 16)])]),
    );
  }
  const leftOut = leftOutOf(effective);
  if (leftOut.length > 0) {
    text += `\n${bold("Left out")} ${dim("(hidden names are never part of a skill)")}\n`;
    text += leftOut.map((name) => `  ${visibleLine(name)}\n`).join("");
  }
  const { template } = effective.content.read();
  const heading = skillMd ? "Body" : "Template";
  if (template !== undefined) text += `\n${bold(heading)}\n${indent(visibleText(template.trimEnd()))}\n`;
  else if (skill.type === "tool") text += `\n${bold("Template")}\n  (none: the tool returns its arguments as JSON)\n`;
  return text;
}

/** The name-value lines under a skill's heading. */
function skillFacts(effective: Candidate, git: GitOrigin): string[][] {
  const { skill } = effective;
  // What the MCP skills extension serves it as: hosts that load skills verify reads against the digest.
  const published = publishedSkillOf(effective);
  return [
    ["layer", `${effective.layer.name} (priority ${effective.layer.priority})`],
    ["file", effective.source],
    ...(published
      ? [
          ["uri", `${published.uri}${published.synthesised ? " (a SKILL.md made from this YAML skill)" : ""}`],
          ["digest", published.byPath.get("SKILL.md")!.digest],
        ]
      : []),
    ...(skill.format === "skill-md" ? [["format", "Agent Skills folder (SKILL.md)"]] : []),
    ...(skill.hidden ? [["listed", "no (user-invocable: false): only the model invokes it"]] : []),
    ...(skill.modelInvocable === false ? [["model", "never offered to a model (disable-model-invocation: true)"]] : []),
    ...(git
      ? [
          ["commit", git.commit],
          ["in repository", `${git.url} ${git.path}`],
        ]
      : []),
    ...signerFacts(effective.layer.provenance),
    ["tags", skill.tags.join(", ") || "(none)"],
    ...(skill.version !== undefined ? [["version", skill.version]] : []),
    ...(skill.exampleCount > 0 || skill.examplesFile
      ? [
          [
            "examples",
            `${skill.exampleCount}${skill.examplesFile ? ` in ${skill.examplesFile.path} (test-only: run by skill-central test, not published to clients)` : ""}`,
          ],
        ]
      : []),
  ];
}

/** A remote layer's index URL (a url layer) and who signed what it serves (docs/provenance.md). */
function signerFacts(origin: LayerProvenance | undefined): string[][] {
  if (!origin) return [];
  const index = origin.commit === undefined ? [["index", origin.url]] : [];
  const signer = origin.signer
    ? `${origin.signer.principal} (${origin.signer.fingerprint})`
    : "not checked (the layer has no signers; see docs/provenance.md)";
  return [...index, ["signed by", signer]];
}
