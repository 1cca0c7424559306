/**
 * Reading one skill file, synchronously and with limits (size, never blocking on a FIFO, the
 * binary's embedded files), as text with the stamp that says when it changed.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import type { Diagnostic } from "../diagnostics.ts";
import { describeFsError } from "./fs-errors.ts";
import { isEmbedded } from "./fs-state.ts";
import { stampOfStats, type FileStamp } from "./stamp.ts";

const UNREADABLE_HINT = "make it readable to you, or move it out of the layer";
export const NOT_A_FILE_HINT = "remove it, or rename it so it does not end in .yaml, .yml or .json";

/** Larger files are almost certainly not hand-written skills (a log, a dump). */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

export interface SourceText {
  file: string;
  text: string;
}

export type ReadResult = { ok: true; source: SourceText; stamp: FileStamp } | { ok: false; diagnostic: Diagnostic };

/** Opening never waits: a FIFO that took the place of a file must not block the load. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * One buffer to read skill-sized files into (the text is copied out of it): a start-up reads
 * thousands, and a buffer apiece was a tenth of the read. Larger files get their own, so this
 * never holds more than this much.
 */
const SCRATCH_BYTES = 64 * 1024;
let scratch: Buffer | undefined;

function bufferFor(size: number): Buffer {
  if (size > SCRATCH_BYTES) return Buffer.allocUnsafe(size);
  scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES);
  return scratch;
}

/** A file that could not be opened or read: its diagnostic. */
function unreadable(file: string, error: unknown): ReadResult {
  return {
    ok: false,
    diagnostic: {
      severity: "error",
      code: "unreadable",
      file,
      message: `cannot read the file: ${describeFsError(error)}`,
      hint: UNREADABLE_HINT,
    },
  };
}

/** The built-in skills inside a binary: our own files, in a file system that cannot be opened. */
function readEmbedded(file: string): ReadResult {
  try {
    const stamp = stampOfStats(statSync(file));
    return { ok: true, source: { file, text: readFileSync(file, "utf8") }, stamp };
  } catch (error) {
    return unreadable(file, error);
  }
}

/**
 * Reads one skill file, synchronously (a few microseconds for a skill-sized file; the loader
 * yields between slices). Checks what it opened before reading it: a regular file, within the
 * size limit. Every failure is the file's diagnostic, never an exception.
 */
export function readSkillFile(file: string, limit = MAX_SKILL_FILE_BYTES): ReadResult {
  if (isEmbedded(file)) return readEmbedded(file);
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    return unreadable(file, error);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) {
      return {
        ok: false,
        diagnostic: {
          severity: "error",
          code: "not-a-file",
          file,
          message: "not a regular file (a FIFO, socket or device); never read",
          hint: NOT_A_FILE_HINT,
        },
      };
    }
    if (info.size > limit) {
      return {
        ok: false,
        diagnostic: {
          severity: "error",
          code: "file-too-large",
          file,
          message: `${info.size} bytes is over the ${limit / (1024 * 1024)} MiB limit for a skill file`,
          hint: "split it, or move large material out of the layer",
        },
      };
    }
    const buffer = bufferFor(info.size);
    let read = 0;
    while (read < info.size) {
      const n = readSync(fd, buffer, read, info.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return { ok: true, source: { file, text: buffer.toString("utf8", 0, read) }, stamp: stampOfStats(info) };
  } catch (error) {
    return unreadable(file, error);
  } finally {
    closeSync(fd);
  }
}
