/**
 * A catalog of look-alike skills, as a generator makes them: two families (SQL helpers and pull
 * request reviewers), each skill its family's title, tags and description under its own name of
 * two or three words. Every pair in a family competes (issue 46: 1,000 of them gave validate
 * 499,000 warnings, and `overlap` overflowed the stack), which is what the bounds are tested on.
 */
const WORDS = ["amber", "birch", "cedar", "delta", "ember", "fable", "grove", "harbor", "iris", "jade"]
  .concat(["kelp", "lumen", "maple", "nova", "onyx", "pearl", "quartz", "raven", "sable", "tundra"])
  .concat(["umber", "vale", "willow", "xenon", "yarrow", "zephyr", "aspen", "brook", "coral", "dune"])
  .concat(["elm", "fjord", "glade", "heath", "isle", "juniper", "knoll", "lark", "moss", "nettle"]);

const FAMILIES = [
  {
    id: "sql-helper",
    title: "SQL helper",
    tags: ["sql", "database", "postgres"],
    description:
      "Write and fix SQL queries against the team database, explain query plans, suggest indexes and tune slow joins",
  },
  {
    id: "review-pr",
    title: "PR reviewer",
    tags: ["review", "git", "conventions"],
    description:
      "Review pull requests against the team conventions, flag risky changes, missing tests and unclear naming",
  },
] as const;

export interface LookalikeSkill {
  id: string;
  title: string;
  description: string;
  tags: string[];
}

/** `n` skills (up to 128,000, every id distinct), families alternating. */
export function lookalikeSkills(n: number): LookalikeSkill[] {
  return Array.from({ length: n }, (_, i) => {
    const family = FAMILIES[i % 2]!;
    const k = Math.floor(i / 2);
    const third = k >= 1600 ? `-${WORDS[Math.floor(k / 1600) % 40]}` : "";
    return {
      id: `${family.id}-${WORDS[k % 40]}-${WORDS[Math.floor(k / 40) % 40]}${third}`,
      title: family.title,
      description: family.description,
      tags: [...family.tags],
    };
  });
}

/** The same skills as YAML prompt files, `<folder>/<id>.yaml`, for a fixture (YAML skills have no title). */
export function lookalikeFiles(n: number, folder = "skills"): Record<string, string> {
  const files: Record<string, string> = {};
  for (const s of lookalikeSkills(n))
    files[`${folder}/${s.id}.yaml`] =
      `id: ${s.id}\ndescription: ${s.description}\ntype: prompt\ntags: [${s.tags.join(", ")}]\nprompt: Help with this.\n`;
  return files;
}
