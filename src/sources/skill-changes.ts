/** What a sync changed in a layer, skill file by skill file, for its report. */
import { existsSync } from "node:fs";
import { basename, extname, relative, sep } from "node:path";
import { discoverSkillFiles } from "../storage/discover.ts";
import { parseYamlDocument } from "../storage/parse-document.ts";

/** A skill file that a sync added, removed or changed, named by the id it declares. */
export interface SkillChange {
  /** The skill's `id`, or the file's name when the file does not declare one. */
  id: string;
  /** `/`-separated, relative to the layer's folder. */
  file: string;
}

export interface SkillChanges {
  added: SkillChange[];
  removed: SkillChange[];
  changed: SkillChange[];
}

async function skillFiles(dir: string | undefined): Promise<Map<string, string>> {
  if (!dir || !existsSync(dir)) return new Map();
  const { files } = discoverSkillFiles(dir);
  return new Map(files.map((file) => [relative(dir, file).split(sep).join("/"), file]));
}

async function idOf(file: string): Promise<string> {
  try {
    const parsed = parseYamlDocument({ file, text: await Bun.file(file).text() });
    const id = parsed.ok ? (parsed.doc.data as { id?: unknown } | null)?.id : undefined;
    if (typeof id === "string" && id !== "") return id;
  } catch {
    // Unreadable: named by its file below.
  }
  return basename(file, extname(file));
}

/**
 * What moving a layer from the copy at `before` (absent: nothing) to the copy at `after` changes,
 * skill file by skill file (the files the loader would read; others are not skills).
 */
export async function skillChanges(before: string | undefined, after: string): Promise<SkillChanges> {
  const [old, now] = await Promise.all([skillFiles(before), skillFiles(after)]);
  const changes: SkillChanges = { added: [], removed: [], changed: [] };
  const named = async (file: string, path: string): Promise<SkillChange> => ({ id: await idOf(path), file });
  for (const [file, path] of now) {
    const previous = old.get(file);
    if (!previous) changes.added.push(await named(file, path));
    else if (!Buffer.from(await Bun.file(previous).bytes()).equals(await Bun.file(path).bytes()))
      changes.changed.push(await named(file, path));
  }
  for (const [file, path] of old) if (!now.has(file)) changes.removed.push(await named(file, path));
  for (const list of Object.values(changes))
    list.sort((a: SkillChange, b: SkillChange) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return changes;
}
