/**
 * `.tar.gz` archives of a skill folder. The tar format (ustar and pax headers, checksums, long
 * names) is node-tar's; gzip is node:zlib's. What is written and what is let in is ours.
 *
 * Written deterministically: entries sorted by path as UTF-8 bytes, regular files only (folders
 * are implied by paths), mode 0644, owner and group 0 with empty names, modification time 0, and
 * a gzip header with no time and the "unknown" OS byte. The same files give the same bytes on
 * any machine with the same zlib, so a static host or a git diff sees only real changes.
 *
 * Read strictly: only regular files and folders; a link of either kind, a device, a FIFO or an
 * entry type node-tar does not know refuses the archive, as does a damaged header, and every path
 * goes through archive-entries.ts. Decompression stops at the unpacked-bytes cap, so a gzip bomb
 * costs at most that much memory.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { Header, type HeaderData } from "tar/header";
import { Parser } from "tar/parse";
import { Pax } from "tar/pax";
import type { ReadEntry } from "tar/read-entry";
import { ArchiveRefused, type ArchiveLimits, type UnpackedFile, UnpackBudget } from "./archive-entries.ts";

const BLOCK = 512;
const encoder = new TextEncoder();
const FIXED: HeaderData = { type: "File", mode: 0o644, uid: 0, gid: 0, uname: "", gname: "", mtime: new Date(0) };

/** One file's header (a pax header first when the path does not fit ustar), bytes and padding. */
function entryBlocks(file: UnpackedFile): Uint8Array[] {
  const header = new Header({ ...FIXED, path: file.path, size: file.bytes.length });
  const needsPax = header.encode();
  const pad = new Uint8Array((BLOCK - (file.bytes.length % BLOCK)) % BLOCK);
  return [...(needsPax ? [new Pax({ path: file.path }).encode()] : []), header.block!, file.bytes, pad];
}

/** The `.tar.gz` of `files` (paths relative, `/`-separated), byte-identical for the same files. */
export function writeTarGz(files: readonly UnpackedFile[]): Uint8Array {
  const sorted = [...files].sort((a, b) => Buffer.compare(encoder.encode(a.path), encoder.encode(b.path)));
  const tar = Buffer.concat([...sorted.flatMap(entryBlocks), new Uint8Array(2 * BLOCK)]);
  const gz = gzipSync(tar, { level: 9 });
  gz[9] = 255; // OS: unknown, whatever the machine
  return new Uint8Array(gz.buffer, gz.byteOffset, gz.length);
}

const KIND: Record<string, string> = {
  Link: "a hard link",
  SymbolicLink: "a symbolic link",
  CharacterDevice: "a character device",
  BlockDevice: "a block device",
  FIFO: "a FIFO",
};

function kindRefused(path: string, header: Header): never {
  const kind = KIND[header.type ?? ""] ?? `an entry of type ${JSON.stringify(header.typeKey)}`;
  throw new ArchiveRefused(`${JSON.stringify(path)} is ${kind}`);
}

const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b;

function gunzip(archive: Uint8Array, limits: ArchiveLimits): Uint8Array {
  try {
    // The tar framing adds at most a block per file plus padding to what the cap allows.
    return gunzipSync(archive, { maxOutputLength: limits.maxBytes + (limits.maxFiles + 4) * 2 * BLOCK });
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new ArchiveRefused(
      code === "ERR_BUFFER_TOO_LARGE"
        ? `it unpacks to more than ${limits.maxBytes} bytes (a decompression bomb?)`
        : "it is not a valid gzip stream",
    );
  }
}

/**
 * Reads node-tar's events into `budget`. The first refusal wins and the rest of the stream is
 * only drained; node-tar emits everything synchronously while `end` parses.
 */
class TarReading {
  refused: unknown;

  constructor(readonly budget: UnpackBudget) {}

  attempt(run: () => void): void {
    if (this.refused !== undefined) return;
    try {
      run();
    } catch (error) {
      this.refused = error;
    }
  }

  entry(entry: ReadEntry): void {
    if (this.refused !== undefined || entry.type === "Directory") entry.resume(); // node-tar waits for its end
    if (entry.type === "Directory") this.attempt(() => this.budget.folder(entry.path));
    else if (this.refused !== undefined) return;
    else if (entry.type === "File" || entry.type === "OldFile" || entry.type === "ContiguousFile") {
      const chunks: Buffer[] = [];
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      entry.on("end", () => this.attempt(() => this.budget.file(entry.path, Buffer.concat(chunks))));
    } else this.attempt(() => kindRefused(entry.path, entry.header));
  }

  error(error: Error & { header?: Header }): void {
    const { header } = error;
    // A header that declares a link or a device is refused for that, whatever else is wrong with it.
    this.attempt(() => {
      if (header?.type && KIND[header.type]) kindRefused(header.path ?? "", header);
      throw new ArchiveRefused(`the tar stream is damaged (${error.message.replace(/^TAR_\w+: /, "")})`);
    });
  }
}

/** The files of a `.tar.gz` (or plain `.tar`), checked; throws `ArchiveRefused` with the reason. */
export function readTarGz(archive: Uint8Array, limits: ArchiveLimits): UnpackedFile[] {
  const reading = new TarReading(new UnpackBudget(limits));
  const tar = isGzip(archive) ? gunzip(archive, limits) : archive;
  // node-tar would inflate a gzip (or zstd) stream itself, past our cap: one layer of gzip, ours, is all we take.
  if (isGzip(tar)) throw new ArchiveRefused("it is compressed twice (a decompression bomb?)");
  // strict: a damaged header is an error, not a warning and a skipped entry.
  const parser = new Parser({ strict: true, zstd: false, brotli: false });
  parser.on("entry", (entry: ReadEntry) => reading.entry(entry));
  // An entry type node-tar does not know (a sparse file, a volume label) is skipped by it, refused by us.
  parser.on("ignoredEntry", (entry: ReadEntry) => reading.attempt(() => kindRefused(entry.path, entry.header)));
  parser.on("error", (error: Error) => reading.error(error));
  parser.end(Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength));
  if (reading.refused !== undefined) throw reading.refused;
  return reading.budget.files;
}
