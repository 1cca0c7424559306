import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentHash } from "../../src/sources/content-hash.ts";
import { gitEnvironment } from "../../src/sources/git.ts";
import { cacheKey, canonicalUrl, classifyGitUrl, redactText, redactUrl } from "../../src/sources/git-url.ts";
import { readLockfile, serialiseLockfile, type LockEntry } from "../../src/sources/lockfile.ts";
import { checkTree, type TreeLimits } from "../../src/sources/tree-entries.ts";
import type { Diagnostic } from "../../src/diagnostics.ts";

const OID = "a".repeat(40);

/** `git ls-tree -r -l -z` output for the given records. */
function listing(...records: [mode: string, path: string, size?: number][]): Uint8Array {
  return new TextEncoder().encode(
    records
      .map(
        ([mode, path, size = 10]) =>
          `${mode} ${mode === "160000" ? "commit" : "blob"} ${OID} ${mode === "160000" ? "-" : String(size).padStart(7)}\t${path}\0`,
      )
      .join(""),
  );
}

describe("repository URLs", () => {
  test("only https, http, ssh, git, file, scp-like and absolute paths are fetched", () => {
    for (const url of [
      "https://github.com/a/b.git",
      "http://127.0.0.1:8080/x",
      "ssh://git@host:22/a.git",
      "git://host/a",
      "file:///srv/a.git",
      "git@github.com:a/b.git",
      "/srv/git/a.git",
    ]) {
      expect(classifyGitUrl(url)).not.toHaveProperty("problem");
    }
    for (const url of ["ext::sh -c touch% /tmp/pwned", "fd::3", "ftp://host/x", "-uhack", "relative/path", "C:"]) {
      expect(classifyGitUrl(url)).toHaveProperty("problem");
    }
  });

  test("credentials are redacted for people and removed from the lock's identity", () => {
    expect(redactUrl("https://user:s3cr3t@host/a.git")).toBe("https://***@host/a.git");
    expect(redactUrl("https://ghp_token123@host/a.git")).toBe("https://***@host/a.git");
    expect(redactUrl("ssh://git@host/a.git")).toBe("ssh://git@host/a.git");
    expect(redactUrl("ssh://git:pw123@host/a.git")).toBe("ssh://git:***@host/a.git");
    expect(redactUrl("git@github.com:a/b.git")).toBe("git@github.com:a/b.git");
    expect(canonicalUrl("https://user:s3cr3t@host/a.git")).toBe("https://host/a.git");
    expect(canonicalUrl("ssh://git:pw123@host/a.git")).toBe("ssh://git@host/a.git");
    // The cache is keyed by identity: a token change does not make a new cache entry.
    expect(cacheKey("https://user:one@host/a.git")).toBe(cacheKey("https://user:two@host/a.git"));
    expect(cacheKey("https://user:one@host/a.git")).not.toContain("one");
  });

  test("git's messages are redacted of the URL's secrets, encoded or not", () => {
    const url = "https://alice:p%40ss-word@host/a.git";
    const message = "fatal: unable to access 'https://alice:p%40ss-word@host/a.git/': auth failed for p@ss-word";
    const redacted = redactText(message, url);
    expect(redacted).not.toContain("p%40ss-word");
    expect(redacted).not.toContain("p@ss-word");
    expect(redacted).not.toContain("alice");
    expect(redactText("remote: see https://bob:tok@other/x", undefined)).toBe("remote: see https://***@other/x");
  });
});

describe("the git environment", () => {
  test("no prompt of any kind, batch-mode ssh kept on the user's ssh command, repository variables dropped", () => {
    const env = gitEnvironment({
      PATH: "/bin",
      GIT_DIR: "/elsewhere",
      GIT_ASKPASS: "/ide/askpass.sh",
      GIT_SSH_COMMAND: "ssh -i ~/.ssh/work",
      SSH_AUTH_SOCK: "/agent",
    });
    expect(env.GIT_TERMINAL_PROMPT).toBe("0");
    expect(env.GIT_ASKPASS).toBe("");
    expect(env.SSH_ASKPASS).toBe("");
    expect(env.GCM_INTERACTIVE).toBe("never");
    expect(env.GIT_SSH_COMMAND).toStartWith("ssh -i ~/.ssh/work -o BatchMode=yes");
    expect(env.SSH_AUTH_SOCK).toBe("/agent");
    expect(env.GIT_DIR).toBeUndefined();
    expect(gitEnvironment({}, "ssh -F /my/config").GIT_SSH_COMMAND).toStartWith("ssh -F /my/config -o BatchMode=yes");
  });
});

describe("tree checks", () => {
  const LIMITS: TreeLimits = { maxFiles: 5, maxFileBytes: 100, maxTotalBytes: 250 };

  test("regular files pass, with their paths and sizes", () => {
    const checked = checkTree(
      listing(["100644", "a.yaml"], ["100755", "bin/run.sh", 20], ["100644", "deep/er/b.yaml", 30]),
      LIMITS,
    );
    expect(checked).toEqual({
      ok: true,
      totalBytes: 60,
      files: [
        { path: "a.yaml", oid: OID, size: 10, executable: false },
        { path: "bin/run.sh", oid: OID, size: 20, executable: true },
        { path: "deep/er/b.yaml", oid: OID, size: 30, executable: false },
      ],
    });
  });

  test("symlinks, submodules, dot-dot and .git segments are refused, each named", () => {
    const checked = checkTree(
      listing(
        ["120000", "passwd.yaml"],
        ["160000", "vendor/lib"],
        ["100644", "../escape.yaml"],
        ["100644", "x/.GIT/config"],
        ["100644", "git~1/hooks"],
        ["100644", "ok.yaml"],
      ),
      { ...LIMITS, maxFiles: 10 },
    );
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems).toEqual([
      "passwd.yaml: symbolic links are not copied",
      "vendor/lib: submodules are not copied",
      '../escape.yaml: ".." path segment',
      'x/.GIT/config: ".GIT" path segment (a git folder)',
      'git~1/hooks: "git~1" path segment (a git folder)',
    ]);
  });

  test("names that collide by case or by Unicode normalisation are refused", () => {
    const nfc = "caf\u00e9.yaml";
    const nfd = "cafe\u0301.yaml";
    const checked = checkTree(
      listing(
        ["100644", "Review.yaml"],
        ["100644", "review.yaml"],
        ["100644", nfc],
        ["100644", nfd],
        ["100644", "Dir/a.yaml"],
        ["100644", "dir/b.yaml"],
      ),
      { ...LIMITS, maxFiles: 10 },
    );
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems).toEqual([
      "review.yaml: collides with Review.yaml, on a case-insensitive file system",
      `${nfd}: collides with ${nfc}, the same name in another Unicode normal form (NFC/NFD)`,
      "dir/b.yaml: collides with Dir, on a case-insensitive file system",
    ]);
  });

  test("limits are enforced from the listing, before anything is read", () => {
    const big = checkTree(listing(["100644", "huge.bin", 101]), LIMITS);
    expect(big).toEqual({ ok: false, problems: ["huge.bin: 101 bytes is over the limit of 100 bytes per file"] });
    const many = checkTree(
      listing(...Array.from({ length: 6 }, (_, i) => ["100644", `f${i}.yaml`] as [string, string])),
      LIMITS,
    );
    expect(many).toEqual({ ok: false, problems: ["6 entries is over the limit of 5 files"] });
    const total = checkTree(listing(["100644", "a", 100], ["100644", "b", 100], ["100644", "c", 100]), LIMITS);
    expect(total).toEqual({ ok: false, problems: ["300 bytes in all is over the limit of 250 bytes"] });
  });

  test("a name that is not UTF-8 is refused", () => {
    const bytes = new Uint8Array([...new TextEncoder().encode(`100644 blob ${OID}      10\t`), 0xff, 0xfe, 0x00]);
    expect(checkTree(bytes, LIMITS)).toEqual({
      ok: false,
      problems: ["(a name that is not UTF-8): file names must be UTF-8"],
    });
  });
});

describe("contentHash", () => {
  const enc = (s: string) => new TextEncoder().encode(s);

  test("is the documented framing: path NUL length NUL bytes, sorted by UTF-8 path", () => {
    const expected = createHash("sha256").update("a.yaml\x002\x00hib/c.yaml\x000\x00").digest("hex");
    expect(
      contentHash([
        { path: "b/c.yaml", bytes: enc("") },
        { path: "a.yaml", bytes: enc("hi") },
      ]),
    ).toBe(`sha256:${expected}`);
  });

  test("the framing is unambiguous: moving bytes between a path and content changes the hash", () => {
    expect(contentHash([{ path: "a", bytes: enc("bc") }])).not.toBe(contentHash([{ path: "ab", bytes: enc("c") }]));
    expect(
      contentHash([
        { path: "a", bytes: enc("") },
        { path: "b", bytes: enc("") },
      ]),
    ).not.toBe(contentHash([{ path: "a", bytes: enc("\x00b\x000\x00") }]));
  });

  test("orders by UTF-8 bytes, not UTF-16 code units", () => {
    // U+FF5E sorts before U+1F600 in UTF-8 (EF… < F0…) but after its surrogates in UTF-16.
    const files = [
      { path: "\u{1F600}", bytes: enc("1") },
      { path: "\uFF5E", bytes: enc("2") },
    ];
    const expected = createHash("sha256")
      .update(Buffer.concat([Buffer.from("\uFF5E\x001\x002"), Buffer.from("\u{1F600}\x001\x001")]))
      .digest("hex");
    expect(contentHash(files)).toBe(`sha256:${expected}`);
  });
});

describe("the lockfile", () => {
  const entry = (commit: string): LockEntry => ({
    url: "https://host/a.git",
    ref: "main",
    path: "skills",
    commit,
    contentHash: `sha256:${"0".repeat(64)}`,
  });

  test("is sorted, timestamp-free and identical for identical entries in any order", () => {
    const one = serialiseLockfile(
      new Map([
        ["zeta", entry("b".repeat(40))],
        ["alpha", entry("a".repeat(40))],
      ]),
    );
    const two = serialiseLockfile(
      new Map([
        ["alpha", entry("a".repeat(40))],
        ["zeta", entry("b".repeat(40))],
      ]),
    );
    expect(one).toBe(two);
    expect(one.indexOf('"alpha"')).toBeLessThan(one.indexOf('"zeta"'));
    expect(one).not.toMatch(/time|date|\d{4}-\d\d-\d\d/i);
    expect(JSON.parse(one)).toEqual({
      lockfileVersion: 1,
      layers: { alpha: entry("a".repeat(40)), zeta: entry("b".repeat(40)) },
    });
  });

  test("a merge conflict left in it is reported with its position; nothing is trusted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lock-"));
    try {
      const file = join(dir, "skill-central.lock");
      await Bun.write(file, `{\n  "lockfileVersion": 1,\n<<<<<<< HEAD\n  "layers": {}\n=======\n>>>>>>> other\n}\n`);
      const found: Diagnostic[] = [];
      const lock = await readLockfile(file, (d) => found.push(d));
      expect(lock.readable).toBe(false);
      expect(lock.entries.size).toBe(0);
      expect(found[0]!.position?.line).toBeGreaterThanOrEqual(3);
      expect(found[0]!.message).toContain("not valid JSON");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a bad entry is reported and skipped; the others are used", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lock-"));
    try {
      const file = join(dir, "skill-central.lock");
      const good = entry("c".repeat(40));
      await Bun.write(
        file,
        JSON.stringify({ lockfileVersion: 1, layers: { bad: { ...good, commit: "abc" }, good } }, null, 2),
      );
      const found: Diagnostic[] = [];
      const lock = await readLockfile(file, (d) => found.push(d));
      expect([...lock.entries.keys()]).toEqual(["good"]);
      expect(found.map((d) => [d.position?.line, d.message])).toEqual([
        [4, 'entry "bad" has a commit that is not a full hex object id'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
