import { inflateRawSync } from "node:zlib";
import { ArchiveRefused, type ArchiveLimits, type UnpackedFile, UnpackBudget } from "./archive-entries.ts";

/**
 * Reading a `.zip` skill archive without a dependency: the central directory is read for every
 * entry's name, sizes, method and Unix mode (so a symbolic link is known as one: libraries that
 * only hand out names and bytes would make it a file holding its target), then each file is
 * inflated with node:zlib, capped at what the unpacked-bytes budget has left and checked against
 * its CRC-32. Stored and deflated entries only; encrypted and ZIP64 archives are refused.
 */

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

function endOfCentralDirectory(view: DataView): number {
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - 22 - 65_535); at--)
    if (view.getUint32(at, true) === EOCD) return at;
  throw new ArchiveRefused("it is not a zip archive (no end of central directory)");
}

interface CentralEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressed: number;
  size: number;
  mode: number;
  offset: number;
}

function centralEntries(zip: Uint8Array, view: DataView): CentralEntry[] {
  const eocd = endOfCentralDirectory(view);
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  if (count === 0xffff || at === 0xffffffff) throw new ArchiveRefused("ZIP64 archives are not read");
  const names = new TextDecoder("utf-8", { fatal: true });
  const entries: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== CENTRAL)
      throw new ArchiveRefused("the zip central directory is damaged");
    const nameLength = view.getUint16(at + 28, true);
    const madeOnUnix = view.getUint8(at + 5) === 3;
    entries.push({
      name: names.decode(zip.subarray(at + 46, at + 46 + nameLength)),
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      crc: view.getUint32(at + 16, true),
      compressed: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      mode: madeOnUnix ? view.getUint32(at + 38, true) >>> 16 : 0,
      offset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

function contents(zip: Uint8Array, view: DataView, entry: CentralEntry, budget: UnpackBudget): Uint8Array {
  const shown = JSON.stringify(entry.name);
  if (entry.flags & 1) throw new ArchiveRefused(`${shown} is encrypted`);
  if (entry.offset + 30 > zip.length || view.getUint32(entry.offset, true) !== LOCAL)
    throw new ArchiveRefused(`the zip entry ${shown} is damaged`);
  const start = entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true);
  const data = zip.subarray(start, start + entry.compressed);
  if (data.length < entry.compressed) throw new ArchiveRefused(`the zip entry ${shown} is cut short`);
  if (entry.size > budget.remaining)
    throw new ArchiveRefused(`it unpacks to more than the limit of bytes (a decompression bomb?)`);
  let bytes: Uint8Array;
  if (entry.method === 0) bytes = data;
  else if (entry.method === 8) {
    try {
      bytes = inflateRawSync(data, { maxOutputLength: Math.max(1, budget.remaining) });
    } catch (error) {
      throw new ArchiveRefused(
        (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE"
          ? "it unpacks to more than the limit of bytes (a decompression bomb?)"
          : `the zip entry ${shown} is not valid deflate data`,
      );
    }
  } else
    throw new ArchiveRefused(`${shown} uses compression method ${entry.method} (only stored and deflate are read)`);
  if (bytes.length !== entry.size || Bun.hash.crc32(bytes) >>> 0 !== entry.crc >>> 0)
    throw new ArchiveRefused(`the zip entry ${shown} does not match its recorded size and CRC-32`);
  return bytes;
}

/** The files of a `.zip`, checked; throws `ArchiveRefused` with the reason. */
export function readZip(zip: Uint8Array, limits: ArchiveLimits): UnpackedFile[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const budget = new UnpackBudget(limits);
  let names: CentralEntry[];
  try {
    names = centralEntries(zip, view);
  } catch (error) {
    if (error instanceof ArchiveRefused) throw error;
    throw new ArchiveRefused("it is not a valid zip archive");
  }
  for (const entry of names) {
    const kind = entry.mode & S_IFMT;
    if (kind === S_IFLNK) throw new ArchiveRefused(`${JSON.stringify(entry.name)} is a symbolic link`);
    if (entry.name.endsWith("/") || kind === S_IFDIR) budget.folder(entry.name);
    else if (kind === 0 || kind === S_IFREG) budget.file(entry.name, contents(zip, view, entry, budget));
    else throw new ArchiveRefused(`${JSON.stringify(entry.name)} is not a regular file`);
  }
  return budget.files;
}
