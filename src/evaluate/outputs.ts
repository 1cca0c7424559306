/**
 * The files a run produced. The model answers in text; a fenced block whose info string names a
 * file (```json report.json, ```report.json, or file=report.json) is that file, written into the
 * run's `outputs/` folder, where `file:` assertions look. A name that would leave the folder (an
 * absolute path, `..`) is ignored: an answer never writes outside its run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
import { fencedBlocks } from "./assertions.ts";

function fileNameOf(info: string): string | undefined {
  const words = info.split(/\s+/).filter((w) => w !== "");
  const named = words.find((w) => /^(file|path|title|filename)=/.test(w));
  const raw = named
    ? named.slice(named.indexOf("=") + 1).replace(/^["']|["']$/g, "")
    : words.find((w) => /[./]/.test(w));
  if (raw === undefined || raw === "") return undefined;
  const name = normalize(raw.replace(/\\/g, "/"));
  if (name.startsWith("/") || name.startsWith(`..${sep}`) || name === ".." || /^[A-Za-z]:/.test(name)) return undefined;
  return name;
}

/** Writes the answer's named blocks into `outputs`; returns their names. */
export function writeOutputs(answer: string, outputs: string): string[] {
  const written: string[] = [];
  for (const block of fencedBlocks(answer)) {
    const name = fileNameOf(block.info);
    if (name === undefined) continue;
    const file = join(outputs, name);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, block.body);
    written.push(name);
  }
  return written;
}
