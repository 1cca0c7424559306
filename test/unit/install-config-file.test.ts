import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backupPath, backUp, FileProblem, readConfigFile, undo, writeAtomically } from "../../src/install/config-file.ts";

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
    expect(file).toEqual({ path, real: path, exists: false, text: "" });
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
