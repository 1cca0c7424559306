import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ArchiveRefused,
  DEFAULT_ARCHIVE_LIMITS,
  entryPath,
  pathProblem,
  UnpackBudget,
} from "../../src/storage/archive-entries.ts";
import { digestFromHex, digestHex, digestOf, parseDigest, shortDigest } from "../../src/storage/digest.ts";
import { holdsSkills, wellKnownCacheKey } from "../../src/sources/well-known/cache.ts";
import { tokenUrlProblem } from "../../src/sources/well-known/fetch.ts";

/**
 * The pure parts of issues 34 and 38's well-known work: the one digest type, the one file-name
 * rule of `sync` and `publish`, names no file system can hold, the cache folder's name, where a
 * token may go. The end-to-end behaviour is in test/e2e/well-known-consumer-suite.ts.
 */

const refusal = (run: () => void): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof ArchiveRefused) return error.message;
    throw error;
  }
  return "not refused";
};

describe("Digest: sha256:<hex>, built and taken apart in one place", () => {
  test("made from bytes or hex, parsed strictly, shown short", () => {
    const digest = digestOf(new TextEncoder().encode("abc"));
    expect(digest).toBe("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(digestFromHex(digestHex(digest))).toBe(digest);
    expect(parseDigest(digest)).toBe(digest);
    for (const bad of [digest.toUpperCase(), digest.slice(0, -1), `sha512:${digestHex(digest)}`, 42, undefined])
      expect(parseDigest(bad)).toBeUndefined();
    expect(() => digestFromHex("xyz")).toThrow("not a SHA-256 in hex");
    expect(shortDigest(digest)).toBe("sha256:ba7816bf8f01…");
  });
});

describe("one file-name rule for sync and publish", () => {
  test("tab, newline and backslash are refused by pathProblem, and entryPath refuses with its words", () => {
    for (const name of ["a\tb.md", "a\nb.md", "a\\b.md", "ref/x\r.md"]) {
      const problem = pathProblem(name);
      expect(problem).toBe("has a backslash or a control character (a tab, a newline)");
      expect(refusal(() => entryPath(name))).toBe(`${JSON.stringify(name)} ${problem}`);
    }
    expect(pathProblem("ref/notes.md")).toBeUndefined();
    expect(pathProblem(`${"n".repeat(255)}`)).toBeUndefined();
    expect(pathProblem(`${"n".repeat(256)}`)).toBe("has a name over 255 bytes, longer than file systems allow");
    expect(pathProblem(`${"é".repeat(128)}`)).toBe("has a name over 255 bytes, longer than file systems allow");
    expect(pathProblem(Array.from({ length: 6 }, () => "n".repeat(200)).join("/"))).toBe("is a path over 1024 bytes");
  });

  test("a name that would be both a file and a folder is refused, in either order, whatever its case", () => {
    const clash = (...paths: string[]) =>
      refusal(() => {
        const budget = new UnpackBudget(DEFAULT_ARCHIVE_LIMITS);
        for (const path of paths) {
          if (path.endsWith("/")) budget.folder(path);
          else budget.file(path, new Uint8Array(1));
        }
      });
    expect(clash("a", "a/b")).toBe('"a" is both a file and a folder ("a/b")');
    expect(clash("a/b", "a")).toBe('"a" is both a file and a folder ("a")');
    expect(clash("SKILL.md", "SKILL.md/x")).toBe('"SKILL.md" is both a file and a folder ("SKILL.md/x")');
    expect(clash("docs/", "DOCS")).toBe('"DOCS" is both a file and a folder ("DOCS")');
    expect(clash("a", "A")).toBe('"A" appears twice');
    expect(clash("a/", "a/b", "a/c/d", "SKILL.md")).toBe("not refused");
  });
});

describe("the well-known cache folder", () => {
  test("is the whole host name and port, readable, and a short hash of the index URL", () => {
    expect(wellKnownCacheKey("http://127.0.0.1:8770/.well-known/agent-skills/index.json")).toMatch(
      /^127\.0\.0\.1-8770-[0-9a-f]{12}$/,
    );
    expect(wellKnownCacheKey("https://skills.example.com/.well-known/agent-skills/index.json")).toMatch(
      /^skills\.example\.com-443-[0-9a-f]{12}$/,
    );
    expect(wellKnownCacheKey("http://[::1]:9000/a/index.json")).toMatch(/^ipv6-1-9000-[0-9a-f]{12}$/);
    const a = wellKnownCacheKey("https://example.com/a/index.json");
    const b = wellKnownCacheKey("https://example.com/b/index.json");
    expect(a).not.toBe(b);
    expect(a.slice(0, -12)).toBe(b.slice(0, -12));
  });

  test("a copy's skills match a layer's `skills:` in any order", () => {
    expect(holdsSkills({ a: 1, b: 2 }, ["b", "a"])).toBe(true);
    expect(holdsSkills({ a: 1 }, ["a", "b"])).toBe(false);
    expect(holdsSkills({ a: 1 }, undefined)).toBe(true);
  });
});

describe("where a tokenEnv token may go", () => {
  test("https anywhere, http only to this machine", () => {
    expect(tokenUrlProblem("https://example.com/x/", "T")).toBeUndefined();
    for (const local of ["http://localhost:8080/x/", "http://127.0.0.1/x/", "http://[::1]:9/x/"])
      expect(tokenUrlProblem(local, "T")).toBeUndefined();
    expect(tokenUrlProblem("http://example.com:8080/x/", "T")).toContain(
      "the token in T (tokenEnv) is not sent over plain http:// to example.com:8080",
    );
  });
});

describe("the README", () => {
  test("says the test suite takes minutes, next to the command", () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    for (const line of readme.split("\n").filter((l) => /^bun test\s+#/.test(l))) expect(line).toMatch(/minutes/);
  });
});
