import {
  ArchiveRefused,
  DEFAULT_ARCHIVE_LIMITS,
  type ArchiveLimits,
  type UnpackedFile,
} from "../../storage/archive-entries.ts";
import { readTarGz } from "../../storage/tar-gz.ts";
import { readZip } from "../../storage/zip.ts";
import type { ResolvedEntry } from "./parse-index.ts";

/**
 * A downloaded artifact (its digest already verified) as the files of a skill folder: a
 * `skill-md` is the folder's `SKILL.md`; an `archive` is read as `.tar.gz` or `.zip`, by its
 * `Content-Type`, else its URL's extension, else its first bytes, with every entry checked
 * (storage/archive-entries.ts) and `SKILL.md` required at its root. Throws `ArchiveRefused`.
 */
function archiveKind(contentType: string, href: string, bytes: Uint8Array): "tar" | "zip" {
  if (contentType === "application/zip" || contentType === "application/x-zip-compressed") return "zip";
  if (/^application\/(x-)?(gzip|tar|gtar|tar\+gzip)$/.test(contentType)) return "tar";
  const path = new URL(href).pathname.toLowerCase();
  if (path.endsWith(".zip")) return "zip";
  if (path.endsWith(".tar.gz") || path.endsWith(".tgz") || path.endsWith(".tar")) return "tar";
  return bytes[0] === 0x50 && bytes[1] === 0x4b ? "zip" : "tar";
}

export function skillFolderFiles(
  entry: ResolvedEntry,
  bytes: Uint8Array,
  contentType: string,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): UnpackedFile[] {
  if (entry.type === "skill-md") {
    if (bytes.length > limits.maxBytes) throw new ArchiveRefused(`it is over ${limits.maxBytes} bytes`);
    return [{ path: "SKILL.md", bytes }];
  }
  const files =
    archiveKind(contentType, entry.href, bytes) === "zip" ? readZip(bytes, limits) : readTarGz(bytes, limits);
  if (!files.some((f) => f.path === "SKILL.md")) throw new ArchiveRefused("it has no SKILL.md at its root");
  return files;
}
