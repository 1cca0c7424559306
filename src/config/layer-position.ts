/** Where a layer is declared in its config file, looked up only when a finding about the layer needs it. */
import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { parseYamlDocument } from "../storage/parse-document.ts";
import { declaringKey } from "./layer-source.ts";
import type { LayerSpec } from "./resolve-config.ts";

/**
 * Where a layer is declared in its config file, for a finding about the layer (its folder is
 * missing, empty, or another layer's): `file:line:col` points at the declaration, as every other
 * finding does. Looked up only when such a finding is made (the file is read again, the precise
 * parse runs only then), so a load that finds nothing to say pays nothing.
 */
export function layerKeyPosition(file: string, name: string, key = "path"): SourcePosition | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const parsed = parseYamlDocument({ file, text });
  if (!parsed.ok) return undefined;
  const layers = (parsed.doc.data as { layers?: unknown } | null)?.layers;
  if (!Array.isArray(layers)) return undefined;
  const index = layers.findIndex(
    (l) => typeof l === "object" && l !== null && (l as Record<string, unknown>).name === name,
  );
  if (index < 0) return undefined;
  const entry = layers[index] as Record<string, unknown>;
  const field = key in entry ? key : "name";
  return parsed.doc.locate(["layers", index, field]) ?? parsed.doc.locate(["layers", index]);
}

/** Where a finding about a layer points: its declaration in a config file, else (built-in, `.skills/`) its folder. */
export function layerPlace(spec: LayerSpec): Pick<Diagnostic, "file" | "position"> {
  if (!isAbsolute(spec.origin)) return { file: spec.dir };
  const position = layerKeyPosition(spec.origin, spec.name, declaringKey(spec.source));
  return { file: spec.origin, ...(position && { position }) };
}
