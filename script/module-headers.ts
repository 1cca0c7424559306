/**
 * Issue 47, item 9: a module says what it owns in its first lines. A header comment written after
 * the imports is moved above them, word for word; a module with no header is listed, for a person
 * to write one (a script cannot say what a file owns). Re-runnable: a file already in shape is
 * left alone, so a second run changes nothing. test/unit/module-headers.test.ts keeps it so.
 *
 * Which comment is the header: the first block comment (or run of `//` lines) after the last
 * import, with a blank line or another comment after it. One directly above a declaration is that
 * declaration's doc (registry/caller.ts's `Caller`), so it stays where it is and the file is listed.
 *
 *   bun script/module-headers.ts          # move headers above the imports, list files with none
 *   bun script/module-headers.ts --check  # exit 1 if a header is to move or missing
 */
import { Glob } from "bun";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
/** The modules: tests say what they cover in their `describe` names, so *.test.ts files are not held to it. */
export const HEADED = ["src", "bench", "script"];

/** Lines that must stay first: a shebang, and directives the tools read from a file's top. */
const DIRECTIVE = /^(#!|\/\/ @ts-|\/\/ biome-ignore|\/\/\/ <reference)/;

interface Block {
  kind: "blank" | "comment" | "import" | "code";
  /** Lines [start, end). */
  start: number;
  end: number;
}

/** The file's opening, block by block, up to and including its first statement that is not an import. */
function opening(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!.trim();
    const start = i;
    if (line === "") {
      blocks.push({ kind: "blank", start, end: ++i });
    } else if (line.startsWith("/*")) {
      while (!lines[i]!.includes("*/")) i++;
      blocks.push({ kind: "comment", start, end: ++i });
    } else if (line.startsWith("//") || line.startsWith("#!")) {
      while (i < lines.length && /^\s*(\/\/|#!)/.test(lines[i]!)) i++;
      blocks.push({ kind: "comment", start, end: i });
    } else if (
      /^(import\b|export\s+(\*|\{[^}]*\}|type\s+\{[^}]*\})\s+from\b|export\s+\{\s*$|export\s+type\s+\{\s*$)/.test(line)
    ) {
      // An import or a re-export, to its end: `from "…";`, a bare `import "…";`, or `import(…)`-free ends.
      while (i < lines.length && !/(["'];?|;)\s*(\/\/.*)?$/.test(lines[i]!)) i++;
      blocks.push({ kind: "import", start, end: ++i });
    } else {
      blocks.push({ kind: "code", start, end: i + 1 });
      break;
    }
  }
  return blocks;
}

const isDirective = (lines: readonly string[], block: Block) =>
  block.kind === "comment" && lines.slice(block.start, block.end).every((l) => DIRECTIVE.test(l.trim()));

export type Shape = { kind: "headed" } | { kind: "after-imports"; header: Block; lead: number } | { kind: "none" };

/** Whether `text` opens with its header, has one after its imports, or has none. */
export function shapeOf(text: string): Shape {
  const lines = text.split("\n");
  const blocks = opening(lines);
  // Past the directives (and the blank lines among them): where the header belongs.
  let at = 0;
  while (at < blocks.length && (blocks[at]!.kind === "blank" || isDirective(lines, blocks[at]!))) at++;
  const lead = at < blocks.length ? blocks[at]!.start : lines.length;
  const first = blocks[at];
  if (first?.kind === "comment") return { kind: "headed" };
  if (first?.kind !== "import") return { kind: "none" };
  const lastImport = blocks.findLastIndex((b) => b.kind === "import");
  const header = blocks.slice(lastImport + 1).find((b) => b.kind === "comment");
  if (header === undefined) return { kind: "none" };
  const next = blocks[blocks.indexOf(header) + 1];
  // Directly above a declaration: that declaration's doc, not the module's.
  if (next === undefined || next.kind === "code") return { kind: "none" };
  return { kind: "after-imports", header, lead };
}

/** `text` with its header moved above the imports, unchanged, and the blank line it leaves taken up. */
export function withHeaderFirst(text: string): string {
  const shape = shapeOf(text);
  if (shape.kind !== "after-imports") return text;
  const lines = text.split("\n");
  const { header, lead } = shape;
  const comment = lines.slice(header.start, header.end);
  // The header leaves its place with one of the blank lines around it.
  let [from, to] = [header.start, header.end];
  if (lines[to]?.trim() === "") to++;
  else if (lines[from - 1]?.trim() === "") from--;
  const rest = [...lines.slice(0, from), ...lines.slice(to)];
  return [...rest.slice(0, lead), ...comment, ...rest.slice(lead)].join("\n");
}

export function modules(root = ROOT): string[] {
  return HEADED.flatMap((folder) =>
    [...new Glob("**/*.ts").scanSync({ cwd: join(root, folder) })]
      .filter((f) => !f.endsWith(".test.ts"))
      .map((f) => `${folder}/${f}`),
  ).sort();
}

if (import.meta.main) {
  const check = process.argv.includes("--check");
  const moved: string[] = [];
  const missing: string[] = [];
  for (const file of modules()) {
    const path = join(ROOT, file);
    const text = readFileSync(path, "utf8");
    const shape = shapeOf(text);
    if (shape.kind === "none") missing.push(file);
    if (shape.kind !== "after-imports") continue;
    moved.push(file);
    if (!check) writeFileSync(path, withHeaderFirst(text));
  }
  for (const file of moved) console.log(`${check ? "header to move" : "header moved"}: ${file}`);
  for (const file of missing) console.log(`no header (write one): ${file}`);
  console.log(`${moved.length} ${check ? "to move" : "moved"}, ${missing.length} without a header`);
  if (missing.length > 0 || (check && moved.length > 0)) process.exit(1);
}
