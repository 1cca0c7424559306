import { gunzipSync, gzipSync } from "node:zlib";
import { ArchiveRefused, type ArchiveLimits, type UnpackedFile, UnpackBudget } from "./archive-entries.ts";

/**
 * `.tar.gz` archives of a skill folder, written and read without a dependency: ustar headers
 * (512-byte blocks) and node:zlib, both built into Bun.
 *
 * Written deterministically: entries sorted by path as UTF-8 bytes, regular files only (folders
 * are implied by paths), mode 0644, owner and group 0 with empty names, modification time 0, and
 * a gzip header with no time and the "unknown" OS byte. The same files give the same bytes on
 * any machine with the same zlib, so a static host or a git diff sees only real changes.
 *
 * Read strictly: only regular files and folders; a link of either kind, a device or a FIFO
 * refuses the archive, as does any path that is absolute or climbs (`..`). Decompression stops
 * at the unpacked-bytes cap, so a gzip bomb costs at most that much memory.
 */

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

/** Splits a long path into ustar's prefix (≤155 bytes) and name (≤100 bytes) at a slash. */
function splitPath(path: string): { name: string; prefix: string } {
  if (encoder.encode(path).length <= 100) return { name: path, prefix: "" };
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100) return { name, prefix };
  }
  throw new Error(`the path ${JSON.stringify(path)} is too long for a tar header`);
}

function header(path: string, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const put = (text: string, at: number) => block.set(encoder.encode(text), at);
  const { name, prefix } = splitPath(path);
  put(name, 0);
  put(octal(0o644, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(0, 12), 136);
  put("        ", 148);
  put("0", 156);
  put("ustar\u000000", 257);
  put(prefix, 345);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return block;
}

/** The `.tar.gz` of `files` (paths relative, `/`-separated), byte-identical for the same files. */
export function writeTarGz(files: readonly UnpackedFile[]): Uint8Array {
  const sorted = [...files].sort((a, b) => Buffer.compare(encoder.encode(a.path), encoder.encode(b.path)));
  const parts: Uint8Array[] = [];
  for (const file of sorted) {
    parts.push(header(file.path, file.bytes.length), file.bytes);
    const pad = (BLOCK - (file.bytes.length % BLOCK)) % BLOCK;
    if (pad > 0) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(2 * BLOCK));
  const gz = gzipSync(Buffer.concat(parts), { level: 9 });
  gz[9] = 255; // OS: unknown, whatever the machine
  return new Uint8Array(gz.buffer, gz.byteOffset, gz.length);
}

function text(block: Uint8Array, at: number, length: number): string {
  const field = block.subarray(at, at + length);
  const end = field.indexOf(0);
  return decoder.decode(end < 0 ? field : field.subarray(0, end));
}

function number(block: Uint8Array, at: number, length: number): number {
  const field = block.subarray(at, at + length);
  // GNU base-256 for large values: refuse, nothing in a skill needs 8 GiB.
  if ((field[0]! & 0x80) !== 0) throw new ArchiveRefused("a tar header has a size too large to be a skill's file");
  const digits = new TextDecoder()
    .decode(field)
    .replace(/[\0 ]+$/, "")
    .trim();
  if (!/^[0-7]*$/.test(digits)) throw new ArchiveRefused("a tar header is damaged (a field is not octal)");
  return digits === "" ? 0 : Number.parseInt(digits, 8);
}

/** The `path` of a pax extended header, if it sets one. */
function paxPath(bytes: Uint8Array): string | undefined {
  let found: string | undefined;
  for (let at = 0; at < bytes.length; ) {
    const space = bytes.indexOf(32, at);
    const length = Number(new TextDecoder().decode(bytes.subarray(at, space)));
    if (space < 0 || !Number.isInteger(length) || length <= 0) throw new ArchiveRefused("a pax header is damaged");
    const record = decoder.decode(bytes.subarray(space + 1, at + length - 1));
    const eq = record.indexOf("=");
    if (record.slice(0, eq) === "path") found = record.slice(eq + 1);
    at += length;
  }
  return found;
}

const KIND: Record<string, string> = {
  "1": "a hard link",
  "2": "a symbolic link",
  "3": "a character device",
  "4": "a block device",
  "6": "a FIFO",
};

/** The files of a `.tar.gz` (or plain `.tar`), checked; throws `ArchiveRefused` with the reason. */
export function readTarGz(archive: Uint8Array, limits: ArchiveLimits): UnpackedFile[] {
  const budget = new UnpackBudget(limits);
  let tar: Uint8Array;
  if (archive[0] === 0x1f && archive[1] === 0x8b) {
    try {
      // The tar framing adds at most a block per file plus padding to what the cap allows.
      tar = gunzipSync(archive, { maxOutputLength: limits.maxBytes + (limits.maxFiles + 4) * 2 * BLOCK });
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new ArchiveRefused(
        code === "ERR_BUFFER_TOO_LARGE"
          ? `it unpacks to more than ${limits.maxBytes} bytes (a decompression bomb?)`
          : "it is not a valid gzip stream",
      );
    }
  } else tar = archive;
  let longName: string | undefined;
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const block = tar.subarray(at, at + BLOCK);
    if (block.every((b) => b === 0)) break;
    const type = String.fromCharCode(block[156]!);
    const size = number(block, 124, 12);
    const data = tar.subarray(at + BLOCK, at + BLOCK + size);
    if (data.length < size) throw new ArchiveRefused("the tar stream ends inside a file");
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const magic = text(block, 257, 6);
    const prefix = magic === "ustar" ? text(block, 345, 155) : "";
    const path = longName ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
    longName = undefined;
    if (type === "x") longName = paxPath(data);
    else if (type === "L") longName = decoder.decode(data).replace(/\0+$/, "");
    else if (type === "g") continue;
    else if (type === "5") budget.folder(path);
    else if (type === "0" || type === "\0" || type === "7") budget.file(path, data);
    else
      throw new ArchiveRefused(
        `${JSON.stringify(path)} is ${KIND[type] ?? `an entry of type ${JSON.stringify(type)}`}`,
      );
  }
  return budget.files;
}
