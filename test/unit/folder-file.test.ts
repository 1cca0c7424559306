import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readFolderFile } from "../../src/storage/folder-file.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

const record = (path: string, data: string | Uint8Array) => ({
  path,
  size: typeof data === "string" ? Buffer.byteLength(data) : data.length,
  sha256: createHash("sha256").update(data).digest("hex"),
});

describe("reading a recorded file of a skill folder", () => {
  test("text and binary come back byte for byte when size and digest match", () => {
    const png = new Uint8Array([0x89, 0x50, 0, 255, 10, 13]);
    fixture = makeFixture({ "s/references/a.md": "# A\n" });
    writeFileSync(join(fixture.cwd, "s/logo.png"), png);
    const dir = join(fixture.cwd, "s");
    expect(readFolderFile(dir, record("references/a.md", "# A\n"))).toEqual({
      ok: true,
      bytes: new Uint8Array(Buffer.from("# A\n")),
    });
    expect(readFolderFile(dir, record("logo.png", png))).toEqual({ ok: true, bytes: new Uint8Array(png) });
  });

  test("a file edited since the load (same size or not) is refused as changed", () => {
    fixture = makeFixture({ "s/a.md": "one\n" });
    const dir = join(fixture.cwd, "s");
    fixture.write("s/a.md", "two\n");
    expect(readFolderFile(dir, record("a.md", "one\n"))).toMatchObject({ ok: false, reason: "changed" });
    fixture.write("s/a.md", "three\n");
    expect(readFolderFile(dir, record("a.md", "one\n"))).toMatchObject({ ok: false, reason: "changed" });
  });

  test("a link swapped in since the load is never followed: a file link, or a folder link on the way out of the folder", () => {
    fixture = makeFixture({ "s/a.md": "one\n", "s/sub/b.md": "b\n", "secret/b.md": "b\n", "secret.md": "one\n" });
    const dir = join(fixture.cwd, "s");
    renameSync(join(dir, "a.md"), join(dir, "a.old"));
    symlinkSync(join(fixture.cwd, "secret.md"), join(dir, "a.md"));
    expect(readFolderFile(dir, record("a.md", "one\n"))).toMatchObject({ ok: false });
    renameSync(join(dir, "sub"), join(dir, "sub.old"));
    symlinkSync(join(fixture.cwd, "secret"), join(dir, "sub"));
    expect(readFolderFile(dir, record("sub/b.md", "b\n"))).toMatchObject({ ok: false, reason: "changed" });
  });

  test("a file gone since the load is unreadable, with the reason, never an exception", () => {
    fixture = makeFixture({ "s/x": "x" });
    mkdirSync(join(fixture.cwd, "s/empty"));
    expect(readFolderFile(join(fixture.cwd, "s"), record("gone.md", "x"))).toMatchObject({
      ok: false,
      reason: "unreadable",
      message: expect.stringContaining("cannot read the file"),
    });
  });
});
