import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { describeFsError } from "../storage/fs-errors.ts";
import { parseYamlDocument } from "../storage/parse-document.ts";

export interface LayerDeclaration {
  name: string;
  /** Absolute: resolved against the config file's folder, `~` expanded. */
  path: string;
  priority: number;
}

/** One config file, read and checked; keys it did not have are absent. */
export interface ConfigFile {
  file: string;
  /** Set when the whole file was ignored (unreadable, invalid YAML, not a mapping): why. */
  broken?: string;
  brokenAt?: SourcePosition;
  layers?: LayerDeclaration[];
  builtin?: boolean;
  pageSize?: number;
}

export const USER_CONFIG_DIR = ".skill-central";
export const USER_CONFIG_NAMES = ["config.yaml", "config.yml"] as const;
export const PROJECT_CONFIG_NAMES = ["skill-central.yaml", "skill-central.yml"] as const;

export function userConfigPath(home: string): string | undefined {
  for (const name of USER_CONFIG_NAMES) {
    const file = join(home, USER_CONFIG_DIR, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

export function projectConfigPath(cwd: string): string | undefined {
  return PROJECT_CONFIG_NAMES.map((name) => join(cwd, name)).find((file) => existsSync(file));
}

export function expandPath(path: string, base: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(home, path.slice(2));
  return join(base, path).replace(/[\\/]+$/, "") || "/";
}

const KNOWN_KEYS = ["layers", "builtin", "pageSize"];
const LAYER_KEYS = ["name", "path", "priority"];

/**
 * Reads a config file through the same YAML path as skill files (fast parse, duplicate keys are
 * errors, positions on demand) and checks every key by hand: messages here must be precise.
 */
export async function readConfigFile(file: string, home: string, report: (d: Diagnostic) => void): Promise<ConfigFile> {
  // Positions are computed only for a warning: locating runs the slower, precise YAML parse.
  const warn = (message: string, where?: () => SourcePosition | undefined) =>
    report({ severity: "warning", code: "config", file, position: where?.(), message });
  const config: ConfigFile = { file };
  let text: string;
  try {
    text = await Bun.file(file).text();
  } catch (error) {
    return { file, broken: `cannot read it: ${describeFsError(error)}` };
  }
  const parsed = parseYamlDocument({ file, text });
  if (!parsed.ok) {
    const broken = { file, broken: parsed.diagnostic.message };
    return parsed.diagnostic.position ? { ...broken, brokenAt: parsed.diagnostic.position } : broken;
  }
  const { data, locateKey } = parsed.doc;
  if (data === null || data === undefined) return config;
  if (typeof data !== "object" || Array.isArray(data)) {
    return { file, broken: "expected a mapping with keys like layers, builtin", brokenAt: { line: 1, column: 1 } };
  }
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const at = () => locateKey([key]);
    if (!KNOWN_KEYS.includes(key)) {
      warn(`unknown key "${key}" is ignored (known keys: ${KNOWN_KEYS.join(", ")})`, at);
    } else if (key === "builtin") {
      if (typeof value === "boolean") config.builtin = value;
      else warn(`"builtin" must be true or false; ignored`, at);
    } else if (key === "pageSize") {
      if (Number.isInteger(value) && (value as number) > 0) config.pageSize = value as number;
      else warn(`"pageSize" must be a positive whole number; ignored`, at);
    } else if (key === "layers") {
      if (value === null) config.layers = [];
      else if (!Array.isArray(value)) warn(`"layers" must be a list of { name, path, priority }; ignored`, at);
      else {
        config.layers = readLayers(value, dirname(file), home, (message, index, field) =>
          warn(message, () => (field ? locateKey(["layers", index, field]) : parsed.doc.locate(["layers", index]))),
        );
      }
    }
  }
  return config;
}

function readLayers(
  entries: unknown[],
  base: string,
  home: string,
  warn: (message: string, index: number, field?: string) => void,
): LayerDeclaration[] {
  const layers: LayerDeclaration[] = [];
  const names = new Set<string>();
  entries.forEach((entry, index) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      warn(`layer ${index + 1} must be a mapping { name, path, priority }; ignored`, index);
      return;
    }
    const layer = entry as Record<string, unknown>;
    for (const key of Object.keys(layer)) {
      if (!LAYER_KEYS.includes(key)) warn(`unknown layer key "${key}" is ignored (known: ${LAYER_KEYS.join(", ")})`, index, key);
    }
    const { name, path, priority } = layer;
    if (typeof name !== "string" || name.trim() === "") return warn(`layer ${index + 1} needs a "name" (a string); layer ignored`, index, "name");
    if (typeof path !== "string" || path.trim() === "") return warn(`layer "${name}" needs a "path" (a string); layer ignored`, index, "path");
    if (typeof priority !== "number" || !Number.isFinite(priority)) {
      return warn(`layer "${name}" needs a numeric "priority" (higher wins); layer ignored`, index, "priority");
    }
    if (names.has(name)) return warn(`layer "${name}" is declared twice in this file; the second is ignored`, index, "name");
    names.add(name);
    layers.push({ name, path: expandPath(path, base, home), priority });
  });
  return layers;
}
