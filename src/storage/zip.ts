/**
 * Reading a `.zip` skill archive. The zip format (central directory, local headers, ZIP64,
 * inflating, CRC-32) is adm-zip's, chosen because it reads synchronously and hands out each
 * entry's external attributes, so a symbolic link is known as one (libraries that only hand out
 * names and bytes would make it a file holding its target). What is let in is ours: regular files
 * and folders within the unpacked-bytes budget, stored or deflated, not encrypted. An entry's
 * declared size is checked against what the budget has left before it is inflated, and adm-zip
 * stops inflating at that declared size, so a bomb costs at most the budget.
 */
import AdmZip from "adm-zip";
import { ArchiveRefused, type ArchiveLimits, type UnpackedFile, UnpackBudget } from "./archive-entries.ts";

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const MADE_ON_UNIX = 3;
const STORED = 0;
const DEFLATED = 8;
const names = new TextDecoder("utf-8", { fatal: true });

type Entry = AdmZip.IZipEntry;

/** adm-zip's reason without its "ADM-ZIP: " prefix. */
function reason(error: unknown): string {
  return String((error as Error).message).replace(/^ADM-ZIP: /, "");
}

function open(zip: Uint8Array): Entry[] {
  try {
    return new AdmZip(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength), { noSort: true }).getEntries();
  } catch (error) {
    // adm-zip refuses a name given twice while reading the directory; ours says so in the same words.
    const twice = /^Duplicate entry name (".*")$/.exec(reason(error));
    throw new ArchiveRefused(twice ? `${twice[1]} appears twice` : `it is not a valid zip archive (${reason(error)})`);
  }
}

function contents(entry: Entry, name: string, budget: UnpackBudget): Uint8Array {
  const shown = JSON.stringify(name);
  const { header } = entry;
  if (header.encrypted) throw new ArchiveRefused(`${shown} is encrypted`);
  if (header.method !== STORED && header.method !== DEFLATED)
    throw new ArchiveRefused(`${shown} uses compression method ${header.method} (only stored and deflate are read)`);
  if (header.size > budget.remaining)
    throw new ArchiveRefused("it unpacks to more than the limit of bytes (a decompression bomb?)");
  const mismatch = new ArchiveRefused(`the zip entry ${shown} does not match its recorded size and CRC-32`);
  let bytes: Uint8Array;
  try {
    // adm-zip inflates at most the declared size (node:zlib's maxOutputLength) and checks the CRC-32.
    bytes = entry.getData();
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
      throw new ArchiveRefused("it unpacks to more than the limit of bytes (a decompression bomb?)");
    throw reason(error).startsWith("CRC32")
      ? mismatch
      : new ArchiveRefused(`the zip entry ${shown} is damaged (${reason(error)})`);
  }
  // A stored entry's bytes are whatever the archive holds, and an empty one is not CRC-checked: the size is.
  if (bytes.length !== header.size) throw mismatch;
  return bytes;
}

/** The files of a `.zip`, checked; throws `ArchiveRefused` with the reason. */
export function readZip(zip: Uint8Array, limits: ArchiveLimits): UnpackedFile[] {
  const budget = new UnpackBudget(limits);
  for (const entry of open(zip)) {
    let name: string;
    try {
      name = names.decode(entry.rawEntryName);
    } catch {
      throw new ArchiveRefused("it is not a valid zip archive (a name is not UTF-8)");
    }
    const kind = entry.header.made >> 8 === MADE_ON_UNIX ? (entry.header.attr >>> 16) & S_IFMT : 0;
    if (kind === S_IFLNK) throw new ArchiveRefused(`${JSON.stringify(name)} is a symbolic link`);
    if (name.endsWith("/") || kind === S_IFDIR) budget.folder(name);
    else if (kind === 0 || kind === S_IFREG) budget.file(name, contents(entry, name, budget));
    else throw new ArchiveRefused(`${JSON.stringify(name)} is not a regular file`);
  }
  return budget.files;
}
