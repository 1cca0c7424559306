/**
 * Adding a layer to, or removing one from, the `layers:` of a config file's text, for `add` and
 * `remove`. The `yaml` package's Document API finds where each entry is (its source range); the
 * change is then spliced into the text, so every byte outside the entry (comments, blank lines,
 * the spacing before an inline comment, quoting, key order) stays as the user wrote it. Re-printing
 * the whole document would keep comments but not their layout. Only a `layers:` written as a flow
 * list (`layers: [ … ]`) is re-printed through the Document API, which keeps comments, not spacing.
 * Every result is parsed again and checked to hold exactly the layers intended.
 */
import { Document, isMap, isScalar, isSeq, parseDocument, type Pair, type YAMLSeq } from "yaml";

/** A `layers:` entry as the file declares it (only the keys `add` and `remove` look at). */
export interface DeclaredLayer {
  name: string;
  priority?: number;
  path?: string;
  git?: string;
  url?: string;
  ref?: string;
}

export class LayersEditProblem extends Error {
  override readonly name = "LayersEditProblem";
}

function parsed(text: string) {
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new LayersEditProblem(`it is not valid YAML (${doc.errors[0]!.message.split("\n")[0]})`);
  if (doc.contents !== null && !isMap(doc.contents))
    throw new LayersEditProblem("it is not a mapping with keys like layers, builtin");
  return doc;
}

function layersPair(doc: Document.Parsed): Pair | undefined {
  if (!isMap(doc.contents)) return undefined;
  return doc.contents.items.find((p) => isScalar(p.key) && p.key.value === "layers") as Pair | undefined;
}

function asLayers(value: unknown): DeclaredLayer[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (l): l is DeclaredLayer => typeof l === "object" && l !== null && typeof (l as DeclaredLayer).name === "string",
  );
}

/** The layers the text declares (entries without a name left out). */
export function declaredLayers(text: string): DeclaredLayer[] {
  return asLayers((parsed(text).toJS() as { layers?: unknown } | null)?.layers);
}

/** `entry` as block YAML lines, each starting with `indent`. */
function entryLines(entry: Record<string, string | number>, indent: string): string {
  return new Document([entry])
    .toString()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => `${indent}${l}\n`)
    .join("");
}

function check(text: string, expected: readonly string[]): string {
  const names = declaredLayers(text).map((l) => l.name);
  if (JSON.stringify(names) !== JSON.stringify(expected))
    throw new LayersEditProblem("the edited file would not hold the layers intended");
  return text;
}

/** Where a line ends (after its newline), from `at`; the text's end when it has none. */
function afterLine(text: string, at: number): number {
  if (at > 0 && text[at - 1] === "\n") return at;
  const nl = text.indexOf("\n", at);
  return nl === -1 ? text.length : nl + 1;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

/** The text with `entry` appended to its `layers:` (created when absent). */
export function withLayer(text: string, entry: Record<string, string | number>): string {
  const doc = parsed(text);
  const names = [...declaredLayers(text).map((l) => l.name), String(entry.name)];
  const pair = layersPair(doc);
  const value = pair?.value;
  const ending = text === "" || text.endsWith("\n") ? "" : "\n";
  if (pair === undefined) return check(`${text}${ending}layers:\n${entryLines(entry, "  ")}`, names);
  if (value === null || (isScalar(value) && value.value === null && !value.source)) {
    // `layers:` with nothing after it: the entry goes on the lines below.
    const at = afterLine(text, (pair.key as { range: [number, number, number] }).range[1]);
    const glue = at === text.length && ending ? "\n" : "";
    return check(`${text.slice(0, at)}${glue}${entryLines(entry, "  ")}${text.slice(at)}`, names);
  }
  if (isSeq(value) && !value.flow && value.items.length > 0 && value.range) {
    const seq = value as YAMLSeq;
    const first = seq.range![0];
    const indent = text.slice(lineStart(text, first), first);
    const last = seq.items.at(-1) as { range?: [number, number, number] } | null;
    if (/^[ ]*$/.test(indent) && last?.range) {
      const at = afterLine(text, last.range[1]);
      const glue = at === text.length && !text.endsWith("\n") ? "\n" : "";
      return check(`${text.slice(0, at)}${glue}${entryLines(entry, indent)}${text.slice(at)}`, names);
    }
  }
  if (!isSeq(value)) throw new LayersEditProblem("its layers: is not a list");
  doc.addIn(["layers"], doc.createNode(entry));
  return check(doc.toString(), names);
}

/** The text without the layer named `name`, or undefined when no entry has that name. */
export function withoutLayer(text: string, name: string): string | undefined {
  const doc = parsed(text);
  const pair = layersPair(doc);
  const layers = declaredLayers(text);
  const remaining = layers.filter((l) => l.name !== name).map((l) => l.name);
  if (!pair || !isSeq(pair.value) || remaining.length === layers.length) return undefined;
  const seq = pair.value as YAMLSeq;
  const index = seq.items.findIndex((item) => isMap(item) && item.get("name") === name);
  if (index === -1) return undefined;
  const item = seq.items[index] as { range?: [number, number, number] };
  const dashLine = item.range ? lineStart(text, item.range[0]) : -1;
  if (seq.flow || !item.range || !/^[ ]*-[ ]+$/.test(text.slice(dashLine, item.range[0]))) {
    doc.deleteIn(["layers", index]);
    return check(doc.toString(), remaining);
  }
  let start = dashLine;
  const indent = text.slice(dashLine, text.indexOf("-", dashLine));
  // Comment lines just above the entry, at its indentation, speak of it: they go with it (not the first entry's).
  while (index > 0 && start > 0) {
    const above = lineStart(text, start - 1);
    const line = text.slice(above, start - 1);
    if (!line.startsWith(`${indent}#`)) break;
    start = above;
  }
  let out = text.slice(0, start) + text.slice(afterLine(text, item.range[1]));
  if (remaining.length === 0) {
    // The last entry gone: `layers: []`, not a `layers:` that reads as null.
    const keyEnd = (pair.key as { range: [number, number, number] }).range[1];
    const colon = out.indexOf(":", keyEnd);
    out = `${out.slice(0, colon + 1)} []${out.slice(colon + 1)}`;
  }
  return check(out, remaining);
}
