/** `skill-central new`: a new, commented skill file or Agent Skills folder written into a layer, its examples passing as written. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { LayerSource } from "../config/layer-source.ts";
import { fallbackLayer, type LayerSpec } from "../config/resolve-config.ts";
import { isValidSkillId, SKILL_ID_RULE } from "../skill/id.ts";
import { didYouMean } from "../suggest.ts";
import type { Candidate, Registry } from "../registry/registry.ts";
import {
  createFile,
  promptTemplate,
  nextBackupPath,
  replaceFileKeepingBackup,
  skillMdTemplate,
  toolTemplate,
} from "./support/scaffold.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, UsageError } from "./support/command.ts";
import { choice, flag, text } from "./support/options.ts";

/**
 * Where a new skill goes without `--layer`: the layer that would serve it over all others (the
 * highest priority; at a tie, the later declared), never the built-in one. With no layers at all,
 * the `.skills/` folder the server falls back to.
 */
export function defaultLayer(layers: readonly LayerSpec[], cwd: string): LayerSpec {
  const writable = layers.filter(isWritable);
  const best = writable.reduce<LayerSpec | undefined>(
    (top, l) => (!top || l.priority >= top.priority ? l : top),
    undefined,
  );
  return best ?? fallbackLayer(cwd);
}

export const spec = command({
  name: "new",
  summary: "Write a new, commented skill file (or Agent Skills folder) into a layer",
  usage: "new <id> --type prompt|tool [--format yaml|skill-md] [--layer <name>] [--force] [--json]",
  description:
    "Writes <layer folder>/<id>.yaml: a commented prompt or tool skill with inline examples that pass as\n" +
    "written; with --format skill-md, an Agent Skills folder <layer folder>/<id>/ holding SKILL.md and its\n" +
    "examples.yaml (a prompt: the format has no tools). Without --layer, the highest-priority layer of the project (or .skills/ when none is\n" +
    "configured). Never overwrites a file without --force; with --force it replaces the file and keeps the\n" +
    "old one as <file>.bak (then .2.bak, …). An id a lower layer already defines is refused unless --force\n" +
    "(the new file then overrides it). Always refused: an id another file of the same layer defines (they\n" +
    "would conflict), and an id a higher-priority layer defines (the new file would never be served).",
  options: {
    type: choice(["prompt", "tool"], "The kind of skill (required for YAML; a SKILL.md folder is a prompt)", {
      quoted: true,
    }),
    format: choice(["yaml", "skill-md"], "A YAML file (default) or an Agent Skills folder with SKILL.md", {
      quoted: true,
      default: "yaml",
    }),
    layer: text("<name>", "The layer to write into (default: the highest-priority one)"),
    force: flag("Replace an existing file (kept as .bak), or override a lower layer's skill"),
  },
  examples: [
    "skill-central new api-review --type prompt",
    "skill-central new ticket-link --type tool --layer team",
    "skill-central new release-notes --format skill-md",
  ],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const id = ctx.args[0]!;
    const format = ctx.options.format;
    const skillMd = format === "skill-md";
    const type = ctx.options.type ?? (skillMd ? "prompt" : undefined);
    if (type === undefined)
      throw new UsageError(
        "--type is required: --type prompt or --type tool (or --format skill-md for an Agent Skills folder)",
      );
    if (skillMd && type === "tool")
      throw new UsageError(
        "an Agent Skills folder (SKILL.md) is always a prompt: the format has no tools; drop --format skill-md to write a YAML tool",
      );
    if (!isValidSkillId(id)) throw new UsageError(`"${id}" is not a valid id: use ${SKILL_ID_RULE}`);
    const force = ctx.options.force;
    const { registry, config, display } = await load(ctx);

    const layer = targetLayer(config.layers, ctx.options.layer, ctx.cwd);
    const file = skillMd ? join(layer.dir, id, "SKILL.md") : join(layer.dir, `${id}.yaml`);
    const shown = display(file);
    const refuse = (message: string) => {
      if (ctx.json) json(ctx, { created: false, error: message });
      else ctx.err(`${ctx.colours.red("error")}: ${message}\n`);
      return EXIT_FAILURE;
    };
    const place = checkPlace(registry, { id, file, shown, layer, force, skillMd }, display);
    if (typeof place === "string") return refuse(place);
    const { exists, overridden } = place;

    const folder = skillMd ? skillMdTemplate(id) : undefined;
    const text = folder ? folder.skillMd : type === "prompt" ? promptTemplate(id) : toolTemplate(id);
    let backup: string | undefined;
    if (exists) backup = replaceFileKeepingBackup(file, text, skillMd);
    else if (createFile(file, text) === "exists")
      return refuse(`${shown} appeared while this command ran; nothing was written — run it again`);
    // An examples file already in the folder is the author's: it is kept as it is.
    const examplesFile = folder && join(layer.dir, id, "examples.yaml");
    const examplesWritten =
      examplesFile !== undefined && folder !== undefined && createFile(examplesFile, folder.examples) === "created";
    if (ctx.json) {
      json(ctx, {
        created: true,
        file: shown,
        layer: layer.name,
        priority: layer.priority,
        type,
        format,
        ...(examplesWritten && { examples: display(examplesFile) }),
        ...(backup !== undefined && { replaced: true, backup: display(backup) }),
        ...(overridden.length > 0 && { overrides: overridden.map((c) => c.source) }),
      });
      return EXIT_OK;
    }
    const verb = backup !== undefined ? "replaced" : "created";
    let out = `${ctx.colours.green(verb)} ${shown} (${skillMd ? "Agent Skills folder" : type}, layer "${layer.name}", priority ${layer.priority})\n`;
    if (examplesWritten) out += `${ctx.colours.green("created")} ${display(examplesFile)}\n`;
    if (backup !== undefined) out += `the previous file is kept as ${display(backup)}\n`;
    if (overridden.length > 0) out += `note: it overrides ${overridden.map(placeOf).join(", ")}\n`;
    out += `Next: edit it, then skill-central render ${id} and skill-central test ${id}\n`;
    ctx.out(out);
    return EXIT_OK;
  },
});

/** The layer `--layer` names, else the default one; a usage error for a layer nobody can write into. */
function targetLayer(layers: readonly LayerSpec[], layerName: string | undefined, cwd: string): LayerSpec {
  if (layerName === undefined) {
    if (layers.some((l) => readOnlyCopy(l.source)) && !layers.some(isWritable)) {
      throw new UsageError(
        "every layer comes from git or a well-known index (a read-only copy); add the skill where it is published, " +
          "or declare a folder layer for local skills",
      );
    }
    return defaultLayer(layers, cwd);
  }
  const named = layers.find((l) => l.name === layerName);
  if (!named) {
    const names = layers.filter((l) => l.origin !== "built-in").map((l) => l.name);
    throw new UsageError(
      `no layer named "${layerName}"${didYouMean(layerName, names)}; layers: ${names.join(", ") || "none (run skill-central init)"}`,
    );
  }
  if (named.origin === "built-in") {
    throw new UsageError("the built-in layer ships with skill-central; write into one of your layers");
  }
  const copy = readOnlyCopy(named.source);
  if (copy)
    throw new UsageError(
      `layer "${layerName}" is a read-only copy of ${copy}, and run skill-central sync --update ${layerName}`,
    );
  return named;
}

/**
 * What a remote layer's folder is a read-only copy of, and where its skills are added instead
 * (undefined for a folder layer): the copy is verified against what was fetched, so a file
 * written into it would only make the layer's copy fail its check.
 */
function readOnlyCopy(source: LayerSource): string | undefined {
  switch (source.kind) {
    case "path":
      return undefined;
    case "git":
      return "a git repository; add the skill there, commit it";
    case "well-known":
      return "a well-known index; add the skill where the index is published";
  }
}

/** A layer `new` may write into: one of the user's folders (not the built-in one, not a remote copy). */
const isWritable = (l: LayerSpec) => l.origin !== "built-in" && readOnlyCopy(l.source) === undefined;

function placeOf(c: Candidate): string {
  return `${c.source} (layer "${c.layer.name}", priority ${c.layer.priority})`;
}

interface Place {
  id: string;
  file: string;
  shown: string;
  layer: LayerSpec;
  force: boolean;
  skillMd: boolean;
}

/**
 * Whether the new file may go there: why not (a conflict in its layer, a higher layer that would
 * shadow it, or an existing file or overridden skill without --force), else what it replaces.
 */
function checkPlace(
  registry: Registry,
  { id, file, shown, layer, force, skillMd }: Place,
  display: (path: string) => string,
): string | { exists: boolean; overridden: Candidate[] } {
  const others = (registry.resolution(id)?.chain ?? []).map((p) => p.candidate).filter((c) => c.path !== file);
  const sameLayer = others.find((c) => c.layer.name === layer.name);
  if (sameLayer)
    return `id "${id}" is already defined in layer "${layer.name}" by ${sameLayer.source}; a second file would conflict with it — edit that file instead`;
  // A file the server would never serve is no use: a higher layer (or a later one at the same
  // priority) defines the id. --force replaces files; it does not write a skill that cannot win.
  const order = registry.layers.find((l) => l.name === layer.name)?.order ?? Number.POSITIVE_INFINITY;
  const wins = (c: Candidate) =>
    c.layer.priority > layer.priority || (c.layer.priority === layer.priority && c.layer.order > order);
  const shadowing = others.find(wins);
  if (shadowing) {
    return `id "${id}" is defined by ${placeOf(shadowing)}, which would shadow ${shown} (layer "${layer.name}", priority ${layer.priority}), so the new file would never be served — edit that file, or write into its layer with --layer ${shadowing.layer.name}`;
  }
  const exists = existsSync(file);
  const overridden = others.filter((c) => !wins(c));
  if (!force && (exists || overridden.length > 0)) {
    const facts = [
      ...(exists ? [`${shown} already exists`] : []),
      ...(overridden.length > 0 ? [`id "${id}" is already defined by ${overridden.map(placeOf).join(", ")}`] : []),
    ];
    const action = exists
      ? `replace it (the current one is then kept as ${display(nextBackupPath(file, skillMd))})`
      : `write ${shown}, which would override it`;
    return `${facts.join("; ")} — pass --force to ${action}`;
  }
  return { exists, overridden };
}
