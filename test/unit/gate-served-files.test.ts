import { describe, expect, test } from "bun:test";
import { dirname, join, relative, sep } from "node:path";
import { servedSkillsOf } from "../../src/audit/gate.ts";
import { loadSkills } from "../../src/load/load-skills.ts";
import { makeFixture } from "../helpers/fixture.ts";
import { mulberry32 } from "../helpers/random.ts";

/**
 * Issue 48 item 1: the audit gate judges exactly the files the loader serves. For generated layer
 * layouts (`_` names, both examples files, `SKILL.md` / `skill.md` / `Skill.md`, skill folders in
 * plain folders and inside other skill folders, hidden files and folders, `evals/`), the gate's list of
 * skills and files (audit/gate.ts `servedSkillsOf`) equals what a load of the same folder serves:
 * each YAML skill file, and each skill folder's published files (its `FolderFacts`). Seeded, so
 * every run makes the same layouts.
 */

const SEED = 48_001;
const LAYOUTS = 100;

type Rand = () => number;
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

/** Names a skill folder's supporting files may have: `_` and `.` names, examples files, nested folders, look-alikes of SKILL.md. */
const FOLDER_FILES = [
  "_helper.sh",
  "__init__.py",
  "_private/run.sh",
  "scripts/_setup.sh",
  "scripts/install.sh",
  "examples.yaml",
  "examples.yml",
  "EXAMPLES.yaml",
  "sub/examples.yaml",
  "sub/SKILL.md",
  "Skill.md",
  "reference.md",
  "data.json",
  "notes.yaml",
  ".env",
  ".hidden/secret.sh",
  "deep/a/b/c.txt",
  // The author's eval data (issue 52): a folder's top-level evals/ is neither served nor audited.
  "evals/evals.json",
  "evals/eval_set.json",
  "sub/evals/eval_set.json",
];

/** One generated layer: `path → text`, relative to the layer folder. */
function layout(rand: Rand, n: number): Record<string, string> {
  const files: Record<string, string> = {};
  let ids = 0;
  /** Outside a skill folder (`Skill.md` does not make one), a `.yaml`, `.yml` or `.json` file is a skill file of its own: a valid one. */
  const skillFile = (path: string) => {
    const id = `y${n}-${ids++}`;
    const skill = { id, description: `Generated skill ${id}`, type: "prompt", prompt: `Hello from ${id}` };
    if (path.endsWith(".json")) return JSON.stringify(skill);
    return Object.entries(skill)
      .map(([k, v]) => `${k}: ${v}\n`)
      .join("");
  };
  const contentOf = (path: string) => (/\.(?:ya?ml|json)$/.test(path) ? skillFile(path) : `file ${path}\n`);
  const parents = ["", "", "group/", "group/inner/", "_drafts/", ".hidden/", "team_a/"];
  const skills = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < skills; i++) {
    const parent = pick(rand, parents);
    const folder = `${parent}s${n}-${i}`;
    const spelling = pick(rand, ["SKILL.md", "SKILL.md", "skill.md", "Skill.md", "both"]);
    const skillMd = (name: string) =>
      `---\nname: ${name}\ndescription: Generated folder ${name}\n---\nBody of ${name}.\n`;
    const base = folder.split("/").pop()!;
    if (spelling === "both") {
      files[`${folder}/SKILL.md`] = skillMd(base);
      files[`${folder}/skill.md`] = skillMd(base);
    } else files[`${folder}/${spelling}`] = skillMd(base);
    const extras = Math.floor(rand() * 6);
    for (let j = 0; j < extras; j++) {
      const name = pick(rand, FOLDER_FILES);
      // Outside a skill folder (Skill.md is not one), a `.yaml` is a skill file of its own: a valid one.
      files[`${folder}/${name}`] = name === "sub/SKILL.md" ? skillMd("sub") : contentOf(name);
    }
  }
  const loose = Math.floor(rand() * 4);
  for (let i = 0; i < loose; i++) {
    const path = `${pick(rand, parents)}${pick(rand, ["a", "_b", ".c", "d"])}${n}-${i}.${pick(rand, ["yaml", "yml", "json"])}`;
    files[path] = contentOf(path);
  }
  return files;
}

const toPosix = (path: string) => path.split(sep).join("/");

describe("the gate's files are the loader's files", () => {
  test(`for ${LAYOUTS} generated layouts, the skills and files audited equal the skills and files served`, async () => {
    const rand = mulberry32(SEED);
    let compared = 0;
    for (let n = 0; n < LAYOUTS; n++) {
      const files = layout(rand, n);
      const fixture = makeFixture({
        "skill-central.yaml": "builtin: false\nlayers:\n  - { name: gen, path: ./gen, priority: 50 }\n",
      });
      try {
        for (const [path, text] of Object.entries(files)) fixture.write(`gen/${path}`, text);
        const layerDir = join(fixture.cwd, "gen");
        const audited = Object.fromEntries(
          servedSkillsOf(layerDir).map((s) => [s.place, s.files.map((f) => f.path).sort()]),
        );
        const loaded = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
        const served: Record<string, string[]> = {};
        for (const record of loaded.records) {
          if (record.layer.name !== "gen" || !record.skill) continue;
          if (record.skill.format === "skill-md") {
            const read = record.files!.read();
            if (!("files" in read)) throw new Error(`folder refused: ${read.refused}`);
            const place = `${toPosix(relative(layerDir, dirname(record.path))) || "."}/`;
            served[place] = read.files.map((f, i) => (i === 0 ? "SKILL.md" : f.path)).sort();
          } else {
            const path = toPosix(relative(layerDir, record.path));
            served[path] = [path];
          }
        }
        expect({ layout: Object.keys(files).sort(), skills: audited }).toEqual({
          layout: Object.keys(files).sort(),
          skills: served,
        });
        compared += Object.keys(served).length;
      } finally {
        fixture.cleanup();
      }
    }
    // The layouts are not empty: most hold several skills the loader serves.
    expect(compared).toBeGreaterThan(LAYOUTS * 2);
  }, 60_000);
});
