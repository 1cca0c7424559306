import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  backupPath,
  backUp,
  FileProblem,
  firstInvalidUtf8,
  readConfigFile,
  undo,
  writeAtomically,
} from "../../src/install/config-file.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "skill-central-file-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe("writing a config file", () => {
  test("a missing file is created with its folders; undo removes both again", () => {
    const path = join(dir, "a", "b", "mcp.json");
    const file = readConfigFile(path);
    expect(file).toEqual({ path, real: path, exists: false, text: "", bytes: new Uint8Array() });
    const written = writeAtomically(file, "{}\n");
    expect(readFileSync(path, "utf8")).toBe("{}\n");
    expect(written.createdDir).toBe(join(dir, "a"));
    undo(file, undefined, written);
    expect(existsSync(join(dir, "a"))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("an existing file keeps its permissions, and no temporary file is left behind", () => {
    const path = join(dir, ".claude.json");
    writeFileSync(path, '{"a": 1}\n', { mode: 0o600 });
    const file = readConfigFile(path);
    expect(file.mode! & 0o777).toBe(0o600);
    writeAtomically(file, '{"a": 2}\n');
    expect(readFileSync(path, "utf8")).toBe('{"a": 2}\n');
    expect(mode(path)).toBe(0o600);
    expect(readdirSync(dir)).toEqual([".claude.json"]);
  });

  test("the backup is a copy beside the file with the same permissions, and never replaces an earlier one", () => {
    const path = join(dir, "settings.json");
    writeFileSync(path, "original", { mode: 0o640 });
    const file = readConfigFile(path);
    const now = new Date("2026-12-03T06:49:30.123Z");
    const first = backUp(file, now);
    expect(first).toBe(`${path}.skill-central-20261203T064930Z.bak`);
    expect(readFileSync(first, "utf8")).toBe("original");
    expect(mode(first)).toBe(0o640);
    expect(backupPath(file, now)).toBe(`${path}.skill-central-20261203T064930Z-2.bak`);
  });

  test("undo puts the backup's bytes back and removes the backup", () => {
    const path = join(dir, "config.toml");
    writeFileSync(path, "# mine\n");
    const file = readConfigFile(path);
    const backup = backUp(file);
    writeAtomically(file, "# changed\n");
    undo(file, backup, {});
    expect(readFileSync(path, "utf8")).toBe("# mine\n");
    expect(existsSync(backup)).toBe(false);
  });

  test("a symbolic link (a dotfile manager's) stays a link; the bytes go to its target", () => {
    const target = join(dir, "dotfiles", "mcp.json");
    mkdirSync(join(dir, "dotfiles"));
    writeFileSync(target, "{}\n");
    const link = join(dir, "mcp.json");
    symlinkSync(target, link);
    const file = readConfigFile(link);
    expect(file.real).toBe(target);
    writeAtomically(file, '{"x": 1}\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe('{"x": 1}\n');
  });

  test("a file changed by someone else since it was read is not overwritten", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, "{}\n");
    const file = readConfigFile(path);
    writeFileSync(path, '{"theirs": true}\n');
    expect(() => writeAtomically(file, '{"ours": true}\n')).toThrow(FileProblem);
    expect(readFileSync(path, "utf8")).toBe('{"theirs": true}\n');
  });

  test("a folder where the file should be is a clear error", () => {
    mkdirSync(join(dir, "mcp.json"));
    expect(() => readConfigFile(join(dir, "mcp.json"))).toThrow(`${join(dir, "mcp.json")} is not a file`);
  });
});

describe("bytes, not text", () => {
  const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

  test("the UTF-8 check agrees with a fatal TextDecoder, byte for byte", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true });
    const samples = ["", "plain", "café ✓ 𝄞", "\xef\xbb\xbf{}"].map((s) => new TextEncoder().encode(s));
    const bad = [
      [0xe9],
      [0x63, 0xe9, 0x22],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf5],
      [0xe2, 0x9c],
      [0x80],
      [0xf0, 0x9d, 0x84],
    ].map((b) => Uint8Array.from(b));
    for (const bytes of [...samples, ...bad]) {
      let valid = true;
      try {
        fatal.decode(bytes);
      } catch {
        valid = false;
      }
      expect({ bytes: [...bytes], valid: firstInvalidUtf8(bytes) < 0 }).toEqual({ bytes: [...bytes], valid });
    }
    expect(firstInvalidUtf8(Uint8Array.from([0x61, 0x0a, 0xe2, 0x9c, 0x93, 0xe9]))).toBe(5);
  });

  test("a file that is not valid UTF-8 is refused with its line, column and byte offset; nothing is changed", () => {
    const path = join(dir, "mcp.json");
    const bytes = latin1('{\n  "mcpServers": {\n    "old": { "command": "x", "args": ["caf\xe9"] }\n  }\n}\n');
    writeFileSync(path, bytes);
    expect(() => readConfigFile(path, "~/.cursor/mcp.json")).toThrow(
      new FileProblem(
        "~/.cursor/mcp.json:3:43: not valid UTF-8 (byte 0xE9 at byte offset 62); skill-central edits only UTF-8 files, so the file is left untouched (save it as UTF-8, then run this again)",
      ),
    );
    expect(Buffer.from(readFileSync(path)).equals(bytes)).toBe(true);
    expect(readdirSync(dir)).toEqual(["mcp.json"]);
  });

  test("a byte order mark stays in the text and the bytes", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, "\uFEFF{}\r\n");
    const file = readConfigFile(path);
    expect(file.text).toBe("\uFEFF{}\r\n");
    expect([...file.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  test("undo puts back the backup's exact bytes (BOM, CRLF, non-ASCII, no final newline) and only then removes the backup", () => {
    const path = join(dir, "settings.json");
    const original = new TextEncoder().encode('\uFEFF{\r\n  "name": "Zoë ✓ 𝄞"\r\n}');
    writeFileSync(path, original, { mode: 0o600 });
    const file = readConfigFile(path);
    const backup = backUp(file);
    expect(Buffer.from(readFileSync(backup)).equals(original)).toBe(true);
    const written = writeAtomically(file, "{}\n");
    expect(undo(file, backup, written)).toEqual({ restored: true });
    expect(Buffer.from(readFileSync(path)).equals(original)).toBe(true);
    expect(mode(path)).toBe(0o600);
    expect(existsSync(backup)).toBe(false);
  });

  test("a file another program wrote after our write is not overwritten by undo, and the backup stays", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, '{"mine": 1}\n');
    const file = readConfigFile(path);
    const backup = backUp(file);
    const written = writeAtomically(file, '{"ours": 1}\n');
    writeFileSync(path, '{"the IDE": 1}\n');
    expect(undo(file, backup, written)).toEqual({
      restored: false,
      reason: "was changed by another program after skill-central wrote it, so it was not put back",
    });
    expect(readFileSync(path, "utf8")).toBe('{"the IDE": 1}\n');
    expect(readFileSync(backup, "utf8")).toBe('{"mine": 1}\n');
  });

  test("a restore that cannot be written keeps the backup and says why", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, '{"mine": 1}\n');
    const file = readConfigFile(path);
    const backup = backUp(file);
    writeAtomically(file, '{"ours": 1}\n');
    // The file became a folder: the restore's rename over it fails for real.
    rmSync(path);
    mkdirSync(path);
    writeFileSync(join(path, "x"), "");
    const undone = undo(file, backup, {});
    expect(undone.restored).toBe(false);
    expect(undone).toMatchObject({ reason: expect.stringMatching(/^could not be put back \(EISDIR/) });
    expect(readFileSync(backup, "utf8")).toBe('{"mine": 1}\n');
  });
});

describe("symbolic links", () => {
  test("a dangling link (the dotfiles target not created yet): the target is written, with its folder, and the link stays a link", () => {
    const target = join(dir, "dotfiles", "cursor", "mcp.json");
    const link = join(dir, "mcp.json");
    symlinkSync("dotfiles/cursor/mcp.json", link);
    const file = readConfigFile(link);
    expect(file).toMatchObject({ path: link, real: target, exists: false });
    const written = writeAtomically(file, "{}\n");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("{}\n");
    expect(readFileSync(link, "utf8")).toBe("{}\n");
    // Undone: the target and the folders the write made go; the link is left dangling, as it was.
    expect(undo(file, undefined, written)).toEqual({ restored: true });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dir, "dotfiles"))).toBe(false);
  });

  test("a chain of links ending in a missing file writes the end of the chain", () => {
    mkdirSync(join(dir, "a"));
    symlinkSync(join(dir, "a", "next.json"), join(dir, "mcp.json"));
    symlinkSync("../b/final.json", join(dir, "a", "next.json"));
    const file = readConfigFile(join(dir, "mcp.json"));
    expect(file.real).toBe(join(dir, "b", "final.json"));
    writeAtomically(file, "{}\n");
    expect(readFileSync(join(dir, "b", "final.json"), "utf8")).toBe("{}\n");
    expect([
      lstatSync(join(dir, "mcp.json")).isSymbolicLink(),
      lstatSync(join(dir, "a", "next.json")).isSymbolicLink(),
    ]).toEqual([true, true]);
  });

  test("a loop of links is a clear error", () => {
    symlinkSync(join(dir, "b.json"), join(dir, "a.json"));
    symlinkSync(join(dir, "a.json"), join(dir, "b.json"));
    expect(() => readConfigFile(join(dir, "a.json"))).toThrow(
      `cannot read ${join(dir, "a.json")}: more than 40 symbolic links in a row (a loop?)`,
    );
  });

  test("a link to an existing file: the backup is a regular file beside the link, not in the folder the link points into", () => {
    mkdirSync(join(dir, "dotfiles"));
    const target = join(dir, "dotfiles", "mcp.json");
    writeFileSync(target, '{"a": 1}\n');
    const link = join(dir, "mcp.json");
    symlinkSync(target, link);
    const file = readConfigFile(link);
    const backup = backUp(file, new Date("2026-12-03T06:49:30Z"));
    expect(backup).toBe(`${link}.skill-central-20261203T064930Z.bak`);
    expect(lstatSync(backup).isFile()).toBe(true);
    expect(readdirSync(join(dir, "dotfiles"))).toEqual(["mcp.json"]);
  });
});
