import { existsSync } from "node:fs";
import { join } from "node:path";
import { FALLBACK_LAYER_DIR, FALLBACK_LAYER_PRIORITY, type LayerSpec } from "../config/resolve-config.ts";
import { isValidSkillId, SKILL_ID_RULE } from "../skill/id.ts";
import { didYouMean } from "../suggest.ts";
import { createFile, promptTemplate, toolTemplate } from "./support/scaffold.ts";
import { EXIT_FAILURE, EXIT_OK, flagOption, json, load, stringOption, UsageError, type CommandSpec } from "./support/command.ts";

/**
 * Where a new skill goes without `--layer`: the layer that would serve it over all others (the
 * highest priority; at a tie, the later declared), never the built-in one. With no layers at all,
 * the `.skills/` folder the server falls back to.
 */
export function defaultLayer(layers: readonly LayerSpec[], cwd: string): LayerSpec {
  const writable = layers.filter((l) => l.origin !== "built-in");
  const best = writable.reduce<LayerSpec | undefined>((top, l) => (!top || l.priority >= top.priority ? l : top), undefined);
  return best ?? { name: "project", dir: join(cwd, FALLBACK_LAYER_DIR), priority: FALLBACK_LAYER_PRIORITY, origin: `${FALLBACK_LAYER_DIR}/ (no layers configured)` };
}

export const spec: CommandSpec = {
  name: "new",
  summary: "Write a new, commented skill file into a layer",
  usage: "new <id> --type prompt|tool [--layer <name>] [--force] [--json]",
  description:
    "Writes <layer folder>/<id>.yaml: a commented prompt or tool skill with inline examples that pass as\n" +
    "written. Without --layer, the highest-priority layer of the project (or .skills/ when none is\n" +
    "configured). Refuses an id that already exists in any layer unless --force (the new file then shadows\n" +
    "or replaces it); an id defined by another file of the same layer is always refused (it would conflict).",
  options: { type: { type: "string" }, layer: { type: "string" }, force: { type: "boolean" } },
  optionHelp: [
    ["--type prompt|tool", "The kind of skill (required)"],
    ["--layer <name>", "The layer to write into (default: the highest-priority one)"],
    ["--force", "Write even if the id exists elsewhere, or the file exists"],
  ],
  examples: ["skill-central new api-review --type prompt", "skill-central new ticket-link --type tool --layer team"],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const id = ctx.args[0]!;
    const type = stringOption(ctx, "type");
    if (type === undefined) throw new UsageError("--type is required: --type prompt or --type tool");
    if (type !== "prompt" && type !== "tool") throw new UsageError(`--type must be "prompt" or "tool", not "${type}"${didYouMean(type, ["prompt", "tool"])}`);
    if (!isValidSkillId(id)) throw new UsageError(`"${id}" is not a valid id: use ${SKILL_ID_RULE}`);
    const force = flagOption(ctx, "force");
    const { registry, config, display } = await load(ctx);

    const layerName = stringOption(ctx, "layer");
    let layer: LayerSpec;
    if (layerName === undefined) layer = defaultLayer(config.layers, ctx.cwd);
    else {
      const named = config.layers.find((l) => l.name === layerName);
      if (!named) {
        const names = config.layers.filter((l) => l.origin !== "built-in").map((l) => l.name);
        throw new UsageError(`no layer named "${layerName}"${didYouMean(layerName, names)}; layers: ${names.join(", ") || "none (run skill-central init)"}`);
      }
      if (named.origin === "built-in") {
        throw new UsageError("the built-in layer ships with skill-central; write into one of your layers");
      }
      layer = named;
    }

    const file = join(layer.dir, `${id}.yaml`);
    const shown = display(file);
    const others = (registry.resolution(id)?.chain ?? []).map((p) => p.candidate).filter((c) => c.path !== file);
    const sameLayer = others.find((c) => c.layer.name === layer.name);
    const refuse = (message: string) => {
      if (ctx.json) json(ctx, { created: false, error: message });
      else ctx.err(`error: ${message}\n`);
      return EXIT_FAILURE;
    };
    if (sameLayer) return refuse(`id "${id}" is already defined in layer "${layer.name}" by ${sameLayer.source}; a second file would conflict with it (edit that file instead)`);
    if (others.length > 0 && !force) {
      const where = others.map((c) => `${c.source} (layer "${c.layer.name}", priority ${c.layer.priority})`).join(", ");
      return refuse(`id "${id}" already exists: ${where}; pass --force to write ${shown} anyway`);
    }
    if (existsSync(file) && !force) return refuse(`${shown} already exists; pass --force to overwrite it`);

    createFile(file, type === "prompt" ? promptTemplate(id) : toolTemplate(id), force);
    if (ctx.json) {
      json(ctx, { created: true, file: shown, layer: layer.name, priority: layer.priority, type });
      return EXIT_OK;
    }
    const higher = others.filter((c) => c.layer.priority > layer.priority);
    let text = `${ctx.colours.green("created")} ${shown} (${type}, layer "${layer.name}", priority ${layer.priority})\n`;
    if (higher.length > 0) text += `note: ${higher[0]!.source} (layer "${higher[0]!.layer.name}") has a higher priority and still wins\n`;
    else if (others.length > 0) text += `note: it shadows ${others.map((c) => c.source).join(", ")}\n`;
    text += `Next: edit it, then skill-central render ${id} and skill-central test ${id}\n`;
    ctx.out(text);
    return EXIT_OK;
  },
};
