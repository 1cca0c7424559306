/**
 * A downloaded artifact (its digest already verified) as the files of a skill folder: a
 * `skill-md` is the folder's `SKILL.md`; an `archive` is read as `.tar.gz` or `.zip`, by its
 * `Content-Type`, else its URL's extension, else its first bytes, with every entry checked
 * (storage/archive-entries.ts) and `SKILL.md` required at its root. The `SKILL.md` must be one
 * the loader would serve (no larger than a skill file may be) and must name the skill the index
 * entry names: an entry `pdf` whose file says `name: deploy` would otherwise be served as
 * `deploy`, past a layer's `skills: [pdf]`. Throws `ArchiveRefused`.
 */
import { parse } from "yaml";
import {
  ArchiveRefused,
  type ArchiveLimits,
  DEFAULT_ARCHIVE_LIMITS,
  type UnpackedFile,
} from "../../storage/archive-entries.ts";
import { MAX_SKILL_FILE_BYTES } from "../../storage/read.ts";
import { readTarGz } from "../../storage/tar-gz.ts";
import { readZip } from "../../storage/zip.ts";
import type { ResolvedEntry } from "./parse-index.ts";

function archiveKind(contentType: string, href: string, bytes: Uint8Array): "tar" | "zip" {
  if (contentType === "application/zip" || contentType === "application/x-zip-compressed") return "zip";
  if (/^application\/(x-)?(gzip|tar|gtar|tar\+gzip)$/.test(contentType)) return "tar";
  const path = new URL(href).pathname.toLowerCase();
  if (path.endsWith(".zip")) return "zip";
  if (path.endsWith(".tar.gz") || path.endsWith(".tgz") || path.endsWith(".tar")) return "tar";
  return bytes[0] === 0x50 && bytes[1] === 0x4b ? "zip" : "tar";
}

/** The frontmatter between `---` lines at the top of a `SKILL.md`, as the loader finds it (skill/skill-md/frontmatter.ts). */
const FRONTMATTER = /^(?:\ufeff)?---[ \t]*\r?\n([\s\S]*?)^---[ \t]*(?:\r?\n|$)/m;
/** A top-level `name:` line with a plain or quoted skill name: all a valid name can be. */
const NAME_LINE = /^name:[ \t]*(["']?)([a-z0-9-]+)\1[ \t]*(?:#.*)?\r?$/gm;

/**
 * The `name` a `SKILL.md` gives, as the loader would read it, or undefined when it gives none the
 * loader would serve. The loader retries a frontmatter YAML refuses with values holding `: `
 * quoted, which never changes a valid `name:` line: so when the YAML does not parse, the one
 * top-level `name:` line decides.
 */
function nameOf(skillMd: Uint8Array): string | undefined {
  const text = new TextDecoder().decode(skillMd);
  const yaml = FRONTMATTER.exec(text)?.[1];
  if (yaml === undefined) return undefined;
  try {
    const data = parse(yaml) as { name?: unknown } | null;
    return typeof data?.name === "string" ? data.name : undefined;
  } catch {
    const lines = [...yaml.matchAll(NAME_LINE)];
    return lines.length === 1 ? lines[0]![2] : undefined;
  }
}

/** Refuses a `SKILL.md` the loader would not serve, or that names another skill than `entry`. */
function checkSkillMd(entry: ResolvedEntry, bytes: Uint8Array): void {
  if (bytes.length > MAX_SKILL_FILE_BYTES)
    throw new ArchiveRefused(
      `its SKILL.md is ${bytes.length} bytes, over the ${MAX_SKILL_FILE_BYTES / 1024 / 1024} MiB a skill file may be (the loader would never serve it)`,
    );
  const name = nameOf(bytes);
  if (name !== entry.name)
    throw new ArchiveRefused(
      name === undefined
        ? `its SKILL.md gives no name the index entry "${entry.name}" can be checked against`
        : `the index entry is "${entry.name}" but its SKILL.md says name: ${name} (an entry must be the skill it names)`,
    );
}

export function skillFolderFiles(
  entry: ResolvedEntry,
  bytes: Uint8Array,
  contentType: string,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): UnpackedFile[] {
  if (entry.type === "skill-md") {
    checkSkillMd(entry, bytes);
    return [{ path: "SKILL.md", bytes }];
  }
  const files =
    archiveKind(contentType, entry.href, bytes) === "zip" ? readZip(bytes, limits) : readTarGz(bytes, limits);
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw new ArchiveRefused("it has no SKILL.md at its root");
  checkSkillMd(entry, skillMd.bytes);
  return files;
}
