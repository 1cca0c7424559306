import { describe, expect, test } from "bun:test";
import {
  publicationFingerprint,
  publishedCatalog,
  publishedSkill,
  publishedSkillOf,
} from "../../src/registry/published-skills.ts";
import { buildRegistry, type Candidate, type LayerRef } from "../../src/registry/registry.ts";
import { synthesiseSkillMd } from "../../src/skill/skill-md/synthesise.ts";
import type { FolderFiles, Skill, SkillFile } from "../../src/skill/skill.ts";

const team: LayerRef = { name: "team", priority: 50, order: 1 };
const project: LayerRef = { name: "project", priority: 100, order: 2 };

function yamlSkill(id: string, extra: Partial<Skill> = {}): Skill {
  return {
    id,
    description: `The ${id} skill`,
    type: "prompt",
    tags: [],
    arguments: [],
    argumentsDeclared: true,
    exampleCount: 0,
    ...extra,
  };
}

const file = (path: string, text: string): SkillFile => ({
  path,
  size: Buffer.byteLength(text),
  sha256: new Bun.CryptoHasher("sha256").update(text).digest("hex"),
});

/** A folder's files with their digests, as the loader's FolderFiles would work them out. */
const folderFiles = new WeakMap<Skill, FolderFiles>();

function folderSkill(id: string, files: SkillFile[], extra: Partial<Skill> = {}): Skill {
  const skill = yamlSkill(id, {
    format: "skill-md",
    frontmatter: { name: id, description: `The ${id} skill`, license: "MIT" },
    ...extra,
  });
  let known = false;
  folderFiles.set(skill, {
    walk: () => ({ names: files.map((f) => f.path), leftOut: [], diagnostics: [] }),
    read: () => {
      known = true;
      return { files };
    },
    get known() {
      return known;
    },
    stale: () => {},
  });
  return skill;
}

function candidate(skill: Skill, layer: LayerRef, template = `Body of ${skill.id}`): Candidate {
  return {
    skill,
    layer,
    path: `/${layer.name}/${skill.id}`,
    source: `${layer.name}/${skill.id}`,
    content: { read: () => ({ template, examples: [] }) },
    ...(folderFiles.has(skill) && { files: folderFiles.get(skill)! }),
  };
}

describe("what is published", () => {
  test("effective prompt skills only: no tool, no shadowed copy, no withdrawn id; in URI order", () => {
    const { registry } = buildRegistry(
      [team, project],
      [
        candidate(yamlSkill("b"), project),
        candidate(yamlSkill("b", { description: "shadowed" }), team),
        candidate(yamlSkill("a-b"), team),
        candidate(yamlSkill("a"), team),
        candidate(yamlSkill("tool", { type: "tool" }), project),
        candidate(yamlSkill("dup"), project),
        { ...candidate(yamlSkill("dup"), project), path: "/project/dup-2" },
        candidate(yamlSkill("dup"), team),
      ],
    );
    const catalog = publishedCatalog(registry);
    expect(catalog.skills.map((s) => s.uri)).toEqual([
      "skill://a-b/SKILL.md",
      "skill://a/SKILL.md",
      "skill://b/SKILL.md",
    ]);
    expect(publishedSkill(registry, "b")?.frontmatter.description).toBe("The b skill");
    expect(publishedSkill(registry, "tool")).toBeUndefined();
    expect(publishedSkill(registry, "dup")).toBeUndefined();
    expect(publishedCatalog(registry)).toBe(catalog);
  });

  test("a folder: its frontmatter as recorded, every file with a sha256: digest, SKILL.md whatever its case on disk", () => {
    const files = [
      file("skill.md", "---\nname: pdf\n---\n"),
      file("assets/my logo #1.png", "png"),
      file("Q&A.md", "q"),
      file("references/a.md", "a"),
    ];
    const skill = folderSkill("pdf", files);
    const published = publishedSkillOf(candidate(skill, project))!;
    expect(published.uri).toBe("skill://pdf/SKILL.md");
    expect(published.frontmatter).toBe(skill.frontmatter as never);
    expect(published.synthesised).toBe(false);
    expect(published.files.map((f) => [f.path, f.uri, f.record?.path])).toEqual([
      ["Q&A.md", "skill://pdf/Q%26A.md", "Q&A.md"],
      ["SKILL.md", "skill://pdf/SKILL.md", "skill.md"],
      ["assets/my logo #1.png", "skill://pdf/assets/my%20logo%20%231.png", "assets/my logo #1.png"],
      ["references/a.md", "skill://pdf/references/a.md", "references/a.md"],
    ]);
    expect(published.files.find((f) => f.path === "SKILL.md")?.digest).toBe(`sha256:${files[0]!.sha256}`);
    // Every URI is already in the form a WHATWG parser gives it, so hosts compare it as sent.
    for (const f of published.files) expect(new URL(f.uri).href).toBe(f.uri);
    expect(published.byPath.get("assets/my logo #1.png")?.size).toBe(3);
  });

  test("a folder without its SKILL.md recorded (unreadable) or without frontmatter is not published", () => {
    expect(publishedSkillOf(candidate(folderSkill("x", [file("notes.md", "n")]), project))).toBeUndefined();
    expect(
      publishedSkillOf(candidate(folderSkill("y", [file("SKILL.md", "s")], { frontmatter: undefined }), project)),
    ).toBeUndefined();
  });

  test("a YAML prompt: one synthesised SKILL.md whose digest and size are of its bytes", () => {
    const skill = yamlSkill("greet", { tags: ["hello"] });
    const published = publishedSkillOf(candidate(skill, team, "Hello {{who}}"))!;
    const text = synthesiseSkillMd(skill, "Hello {{who}}", "team").text;
    expect(published.synthesised).toBe(true);
    expect(published.files).toEqual([
      {
        path: "SKILL.md",
        uri: "skill://greet/SKILL.md",
        size: Buffer.byteLength(text),
        digest: `sha256:${new Bun.CryptoHasher("sha256").update(text).digest("hex")}`,
      },
    ]);
    expect(published.frontmatter).toEqual({
      name: "greet",
      description: "The greet skill",
      metadata: { tags: "hello", layer: "team" },
    });
  });
});

describe("made once per skill version", () => {
  test("a skill version is published once, across snapshots; a new layer name makes it again", () => {
    let reads = 0;
    const skill = yamlSkill("s");
    const source = (layer: LayerRef): Candidate => ({
      ...candidate(skill, layer),
      content: {
        read: () => {
          reads++;
          return { template: "T", examples: [] };
        },
      },
    });
    const first = publishedSkillOf(source(team))!;
    const again = publishedSkillOf(source(team))!;
    expect(reads).toBe(1);
    expect(again.files).toBe(first.files);
    const renamed = publishedSkillOf(source({ ...team, name: "renamed" }))!;
    expect(reads).toBe(2);
    expect(renamed.frontmatter.metadata).toEqual({ layer: "renamed" });
  });

  test("content that cannot be had is not published, and is tried again next time", () => {
    let available = false;
    const skill = yamlSkill("flaky");
    const c: Candidate = {
      ...candidate(skill, team),
      content: {
        read: () => {
          if (!available) throw new Error("content-unavailable");
          return { template: "T", examples: [] };
        },
      },
    };
    expect(publishedSkillOf(c)).toBeUndefined();
    available = true;
    expect(publishedSkillOf(c)?.uri).toBe("skill://flaky/SKILL.md");
  });
});

describe("the fingerprint a reload compares", () => {
  const registryOf = (...candidates: Candidate[]) => buildRegistry([team, project], candidates).registry;

  test("equal for the same skill versions, without reading any template", () => {
    const a = yamlSkill("a");
    const b = folderSkill("b", [file("SKILL.md", "s"), file("x.md", "x")]);
    const read = () => {
      throw new Error("a fingerprint must not read content");
    };
    const make = () => registryOf({ ...candidate(a, team), content: { read } }, candidate(b, project));
    expect(publicationFingerprint(make())).toEqual(publicationFingerprint(make()));
  });

  test("different when a YAML skill is a new version, a folder's file changes, or the provenance does", () => {
    const a = yamlSkill("a");
    const files = [file("SKILL.md", "s"), file("x.md", "x")];
    // Digests a client was given (worked out): compared by digest.
    const given = (skill: Skill) => {
      folderFiles.get(skill)!.read();
      return skill;
    };
    const base = publicationFingerprint(
      registryOf(candidate(a, team), candidate(given(folderSkill("b", files)), project)),
    );
    expect(
      publicationFingerprint(
        registryOf(candidate(yamlSkill("a"), team), candidate(given(folderSkill("b", files)), project)),
      ),
    ).not.toEqual(base);
    expect(
      publicationFingerprint(
        registryOf(candidate(a, team), candidate(given(folderSkill("b", [files[0]!, file("x.md", "y")])), project)),
      ),
    ).not.toEqual(base);
    expect(
      publicationFingerprint(registryOf(candidate(a, project), candidate(given(folderSkill("b", files)), project))),
    ).not.toEqual(base);
    // A folder skill re-read with the same files is the same publication.
    expect(
      publicationFingerprint(registryOf(candidate(a, team), candidate(given(folderSkill("b", [...files])), project))),
    ).toEqual(base);
    // Digests no one was given are not worked out for the comparison: a new version of the files is a change.
    const unseen = folderSkill("b", files);
    expect(publicationFingerprint(registryOf(candidate(a, team), candidate(unseen, project)))).not.toEqual(base);
    expect(folderFiles.get(unseen)!.known).toBe(false);
  });
});
