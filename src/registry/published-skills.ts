/**
 * Every served skill as the MCP skills extension (`io.modelcontextprotocol/skills`) publishes it:
 * the URI of its `SKILL.md`, its frontmatter as data, and every file with the digest and size a
 * host verifies each read against. An Agent Skills folder is published as it is; a YAML prompt
 * skill as a `SKILL.md` synthesised from it (synthesise.ts). Tool skills stay tools.
 *
 * Resolution is the registry's: only an id's effective candidate is published, so a shadowed
 * copy is never offered and a withdrawn id is absent.
 */
import { type Digest, digestFromHex, digestOf } from "../storage/digest.ts";
import { synthesiseSkillMd } from "../skill/skill-md/synthesise.ts";
import { SKILL_MD, skillUri } from "../skill/skill-uri.ts";
import type { FolderFiles, Skill, SkillFile } from "../skill/skill.ts";
import { perSnapshot } from "./per-snapshot.ts";
import type { Candidate, Registry } from "./registry.ts";

/** One file of a published skill. */
export interface PublishedFile {
  /** Relative to the skill's root as published, `/`-separated: the skill file is always `SKILL.md`. */
  path: string;
  uri: string;
  size: number;
  /** The extension's digest format (`sha256:<hex>`). */
  digest: Digest;
  /** A folder's file: the loader's record of it (its path in the folder may differ in case: `skill.md`). */
  record?: SkillFile;
}

export interface PublishedSkill {
  candidate: Candidate;
  /** `skill://<id>/SKILL.md`. */
  uri: string;
  /** The `SKILL.md` frontmatter as data, key for key (`name` and `description` always present). */
  frontmatter: Readonly<Record<string, unknown>> & { name: string; description: string };
  /** Every file, `SKILL.md` included, sorted by URI. */
  files: readonly PublishedFile[];
  /** Files by their published path. */
  byPath: ReadonlyMap<string, PublishedFile>;
  /** A YAML prompt skill's `SKILL.md` is made, not read: its text is made again on each read. */
  synthesised: boolean;
}

type Publication = Omit<PublishedSkill, "candidate">;

function assemble(
  id: string,
  frontmatter: PublishedSkill["frontmatter"],
  files: PublishedFile[],
  synthesised: boolean,
): Publication {
  files.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return { uri: skillUri(id), frontmatter, files, byPath: new Map(files.map((f) => [f.path, f])), synthesised };
}

function folderPublication(skill: Skill, folder: FolderFiles | undefined): Publication | undefined {
  const fm = skill.frontmatter;
  const read = folder?.read();
  const [skillFile, ...others] = read && "files" in read ? read.files : [];
  // The loader lists the skill file first; without it (unreadable) there is nothing to publish.
  if (
    !fm ||
    typeof fm.name !== "string" ||
    typeof fm.description !== "string" ||
    !skillFile ||
    skillFile.path.toLowerCase() !== "skill.md"
  )
    return undefined;
  const file = (path: string, record: SkillFile): PublishedFile => ({
    path,
    uri: skillUri(skill.id, path),
    size: record.size,
    digest: digestFromHex(record.sha256),
    record,
  });
  return assemble(
    skill.id,
    fm as PublishedSkill["frontmatter"],
    [file(SKILL_MD, skillFile), ...others.map((f) => file(f.path, f))],
    false,
  );
}

function synthesisedPublication(candidate: Candidate): Publication | undefined {
  let template: string | undefined;
  try {
    template = candidate.content.read().template;
  } catch {
    // Content that can no longer be had is being reloaded: the skill is published again then.
    return undefined;
  }
  const made = synthesiseSkillMd(candidate.skill, template, candidate.layer.name);
  const bytes = Buffer.from(made.text, "utf8");
  const file: PublishedFile = {
    path: SKILL_MD,
    uri: skillUri(candidate.skill.id),
    size: bytes.length,
    digest: digestOf(bytes),
  };
  return assemble(candidate.skill.id, made.frontmatter, [file], true);
}

/**
 * Publications by skill version: a YAML skill's `Skill`, a folder's `FolderFiles` (a reload makes
 * a new one exactly when a file changed). A reload reuses both for every file version it did not
 * re-read, so a publication (a synthesised file's digest above all) is made once per version,
 * not per reload. The layer's name is part of a synthesised `SKILL.md`, so it is checked too.
 */
const publications = new WeakMap<object, { layer: string; publication: Publication | undefined }>();

/** A served skill as published, or undefined: a tool, or a skill whose files cannot be offered. */
export function publishedSkillOf(candidate: Candidate): PublishedSkill | undefined {
  const { skill } = candidate;
  if (skill.type !== "prompt") return undefined;
  const folder = skill.format === "skill-md";
  const key = folder ? candidate.files : skill;
  const known = key && publications.get(key);
  let publication: Publication | undefined;
  if (known && known.layer === candidate.layer.name) publication = known.publication;
  else {
    publication = folder ? folderPublication(skill, candidate.files) : synthesisedPublication(candidate);
    // A synthesis that failed is tried again next time (its content may come back).
    if (key && (publication || folder)) publications.set(key, { layer: candidate.layer.name, publication });
  }
  return publication && { candidate, ...publication };
}

export interface PublishedCatalog {
  /** Sorted by URI: the order of `skills/list` and its cursors. */
  skills: readonly PublishedSkill[];
}

/** Every published skill of a snapshot, made on first use and shared by every request on it. */
export const publishedCatalog = perSnapshot((registry: Registry): PublishedCatalog => {
  const skills = registry.ofType("prompt").flatMap((c) => publishedSkillOf(c) ?? []);
  skills.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return { skills };
});

/** What `resources/list` shows of a published skill's `SKILL.md`. */
export interface PublishedHead {
  uri: string;
  name: string;
  description: string;
}

/**
 * Every published skill's `SKILL.md` as `resources/list` shows it, known without making any file:
 * a YAML skill's name and description are its own. So listing resources never reads a template,
 * and comparing a replaced snapshot's listing after a reload (whose templates may be gone) is free.
 */
export const publishedHeads = perSnapshot((registry: Registry): PublishedHead[] => {
  const heads = registry.ofType("prompt").flatMap((c): PublishedHead[] => {
    if (c.skill.format !== "skill-md")
      return [{ uri: skillUri(c.skill.id), name: c.skill.id, description: c.skill.description }];
    // From the frontmatter, without the folder's files: listing resources never hashes them (a
    // folder over the size limit, found out when they are, is listed here and not by skills/list).
    const fm = c.skill.frontmatter;
    return fm && typeof fm.name === "string" && typeof fm.description === "string"
      ? [{ uri: skillUri(c.skill.id), name: fm.name, description: fm.description }]
      : [];
  });
  return heads.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
});

/** One published skill by id, without publishing the others. */
export function publishedSkill(registry: Registry, id: string): PublishedSkill | undefined {
  const candidate = registry.get(id);
  return candidate && publishedSkillOf(candidate);
}

/** A number per `Skill` (or `FolderFiles`) object: a reload makes a new one exactly when it re-read the skill's file. */
const versionTokens = new WeakMap<object, number>();
let lastToken = 0;

function versionToken(version: object): number {
  let token = versionTokens.get(version);
  if (token === undefined) {
    token = ++lastToken;
    versionTokens.set(version, token);
  }
  return token;
}

/**
 * What decides every published entry of a snapshot, without making any: a folder skill's file
 * digests when they were worked out (else its `FolderFiles`' version: no client was given those
 * digests, and a reload that changes a file makes a new one), a YAML skill's version (its
 * synthesised SKILL.md is a function of the skill, its template and its layer), and the
 * provenance an entry carries. Two snapshots with equal fingerprints publish equal entries. A
 * reload compares these, not the entries: by then the replaced snapshot's templates may no
 * longer be held, and reading them would only be work.
 */
export const publicationFingerprint = perSnapshot((registry: Registry): unknown[] =>
  registry
    .ofType("prompt")
    .map(({ skill, layer, source, files }) => [
      skill.id,
      skill.format === "skill-md" ? folderFingerprint(files) : versionToken(skill),
      layer.name,
      layer.priority,
      source,
      layer.provenance?.signer?.fingerprint,
    ]),
);

function folderFingerprint(files: FolderFiles | undefined): unknown {
  if (!files?.known) return files ? versionToken(files) : 0;
  const read = files.read();
  return "files" in read ? read.files.map((f) => `${f.path}\0${f.sha256}`) : read.refused;
}
