/**
 * Folder corpora for the Agent Skills bench: N skill folders made of twelve public skills
 * (anthropics/skills: references, scripts, fonts, templates) copied N/12 times, each copy
 * renamed so its `name:` matches its folder. ~11.8 files and ~154 KB per skill: 1,200 folders
 * are ~14,200 files and ~185 MB, 12,000 are ~1.9 GB. Made once per size and kept in
 * bench/.corpus/ (not committed), with the config our server reads.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The twelve skills copied (the repository's others are either tiny or 5 MB of fonts). */
export const PUBLIC_SKILLS = [
  "algorithmic-art",
  "brand-guidelines",
  "doc-coauthoring",
  "docx",
  "frontend-design",
  "internal-comms",
  "mcp-builder",
  "pdf",
  "skill-creator",
  "slack-gif-creator",
  "theme-factory",
  "webapp-testing",
] as const;

/** anthropics/skills at the commit the figures in docs/performance.md were taken with. */
export const SKILLS_REPO = "https://github.com/anthropics/skills.git";
export const SKILLS_COMMIT = "9d2f1ae187231d8199c64b5b762e1bdf2244733d";

export interface FolderCorpus {
  n: number;
  /** The project folder: our server starts here (skill-central.yaml names ./skills). */
  dir: string;
  /** The folder of skill folders the peer is pointed at. */
  skills: string;
  files: number;
  bytes: number;
  /** Prompts the server must list (default: n). */
  prompts?: number;
}

/** The public skills' folder: `from` if given, else a clone of SKILLS_REPO at SKILLS_COMMIT under `root`. */
export function publicSkills(root: string, from: string | undefined): string {
  if (from) return from;
  const clone = join(root, "anthropics-skills");
  if (!existsSync(join(clone, "skills"))) {
    rmSync(clone, { recursive: true, force: true });
    const run = (args: string[]) => {
      const r = Bun.spawnSync(["git", ...args], { stdout: "ignore", stderr: "inherit" });
      if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed (give --skills-from DIR instead)`);
    };
    run(["clone", "--quiet", "--filter=blob:none", "--no-checkout", SKILLS_REPO, clone]);
    run(["-C", clone, "checkout", "--quiet", SKILLS_COMMIT]);
  }
  return join(clone, "skills");
}

function tally(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

export function ensureFolderCorpus(root: string, n: number, source: string): FolderCorpus {
  const dir = join(root, `folders-${n}`);
  const skills = join(dir, "skills");
  const done = join(dir, ".complete");
  if (!existsSync(done)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(skills, { recursive: true });
    writeFileSync(
      join(dir, "skill-central.yaml"),
      "builtin: false\nlayers:\n  - { name: skills, path: ./skills, priority: 10 }\n",
    );
    for (let i = 0; i < n; i++) {
      const base = PUBLIC_SKILLS[i % PUBLIC_SKILLS.length]!;
      const name = `${base}-${Math.floor(i / PUBLIC_SKILLS.length) + 1}`;
      const target = join(skills, name);
      cpSync(join(source, base), target, { recursive: true });
      const skillMd = join(target, "SKILL.md");
      writeFileSync(skillMd, readFileSync(skillMd, "utf8").replace(/^name:.*$/m, `name: ${name}`));
    }
    writeFileSync(done, JSON.stringify(tally(skills)));
  }
  const counted = JSON.parse(readFileSync(done, "utf8")) as { files: number; bytes: number };
  return { n, dir, skills, ...counted };
}
