/**
 * The skills in a set of fetched files (a git layer's commit folder, before its copy is written),
 * found as a layer's load would find them (storage/discover.ts): a folder holding `SKILL.md` is
 * one skill, with every file under it except hidden names and the top-level examples file
 * (which is never published); a `.yaml`, `.yml` or `.json` file elsewhere is a skill file. Names
 * starting with `.` or `_` are not walked into, as in a layer.
 */
import type { SkillFileBytes } from "./verdict.ts";

export interface FetchedSkill {
  /** A folder's name (its skill's name) or a skill file's `id:`, else its file name. */
  id: string;
  kind: "folder" | "file";
  /** Relative to the skill's folder (a folder) or to the layer (a file). */
  files: SkillFileBytes[];
  /** Where it is in the layer, for messages (`team/review/`, `prompts/x.yaml`). */
  place: string;
}

const SKILL_FILE = /\.(?:ya?ml|json)$/i;
const EXAMPLES = new Set(["examples.yaml", "examples.yml"]);

function idOfSkillFile(path: string, bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes.subarray(0, 64 * 1024));
  const id = /^id\s*:\s*["']?([A-Za-z0-9][\w.-]*)["']?\s*$/m.exec(text)?.[1];
  return id ?? path.split("/").pop()!.replace(SKILL_FILE, "");
}

export function groupFetchedSkills(files: readonly SkillFileBytes[]): FetchedSkill[] {
  const walked = files.filter((f) => !f.path.split("/").some((part) => part.startsWith(".") || part.startsWith("_")));
  // The outermost folder holding a SKILL.md owns everything under it.
  const roots = new Set<string>();
  for (const f of walked) {
    const parts = f.path.split("/");
    if (parts.at(-1)!.toLowerCase() === "skill.md") roots.add(parts.slice(0, -1).join("/"));
  }
  const rootOf = (path: string): string | undefined => {
    const parts = path.split("/");
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (roots.has(dir)) return dir;
    }
    return undefined;
  };
  const folders = new Map<string, SkillFileBytes[]>();
  const skills: FetchedSkill[] = [];
  for (const f of walked) {
    const root = rootOf(f.path);
    if (root === undefined) {
      if (SKILL_FILE.test(f.path))
        skills.push({ id: idOfSkillFile(f.path, f.bytes), kind: "file", files: [f], place: f.path });
      continue;
    }
    const rel = root === "" ? f.path : f.path.slice(root.length + 1);
    if (EXAMPLES.has(rel)) continue;
    const path = rel.toLowerCase() === "skill.md" ? "SKILL.md" : rel;
    const list = folders.get(root) ?? [];
    list.push({ path, bytes: f.bytes });
    folders.set(root, list);
  }
  for (const [root, list] of folders)
    skills.push({
      id: root.split("/").pop() || "(layer root)",
      kind: "folder",
      files: list,
      place: root === "" ? "./" : `${root}/`,
    });
  return skills.sort((a, b) => (a.place < b.place ? -1 : 1));
}
