/**
 * storage/digest.ts's bare-hex side against known SHA-256 vectors, and every name and hash that
 * users' machines or files already hold, held to the value it had before the hashing moved there:
 * a changed cache name orphans users' caches (and moves the start-up index), a changed SARIF
 * fingerprint makes every alert a new one, a changed contentHash fails every lockfile.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { contentKey } from "../../src/audit/skill-digest.ts";
import { RULES_VERSION } from "../../src/audit/rules.ts";
import { sarifLog } from "../../src/audit/sarif.ts";
import { startupIndexPath } from "../../src/load/startup-index.ts";
import { CacheEntry } from "../../src/sources/cache-entry.ts";
import { contentHash } from "../../src/sources/content-hash.ts";
import { cacheKey } from "../../src/sources/git-url.ts";
import { wellKnownCacheKey } from "../../src/sources/well-known/cache.ts";
import { projectCacheName } from "../../src/storage/cache-dir.ts";
import { digestOf, sha256Bytes, sha256Hex, shortHash } from "../../src/storage/digest.ts";

const EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const enc = new TextEncoder();

describe("sha256Hex", () => {
  test("known vectors, as text and as bytes", () => {
    expect(sha256Hex("")).toBe(EMPTY);
    expect(sha256Hex("abc")).toBe(ABC);
    expect(sha256Hex(new Uint8Array())).toBe(EMPTY);
    expect(sha256Hex(enc.encode("abc"))).toBe(ABC);
  });

  test("text is hashed as its UTF-8", () => {
    expect(sha256Hex("é ✓")).toBe(sha256Hex(enc.encode("é ✓")));
  });

  test("parts hash as their concatenation", () => {
    expect(sha256Hex(["a", enc.encode("b"), "", "c"])).toBe(ABC);
    expect(sha256Hex([])).toBe(EMPTY);
  });

  test("the same as node:crypto, whatever the size", () => {
    for (const size of [1, 55, 56, 64, 100, 10_000, 1 << 20]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 131 + size) & 0xff);
      expect(sha256Hex(bytes)).toBe(createHash("sha256").update(bytes).digest("hex"));
    }
  });

  test("the Digest and the bytes are the same hash", () => {
    expect(digestOf("abc")).toBe(`sha256:${ABC}`);
    expect(sha256Bytes("abc").toString("hex")).toBe(ABC);
  });
});

describe("shortHash", () => {
  test("the first digits of the hex", () => {
    expect(shortHash("abc", 12)).toBe(ABC.slice(0, 12));
    expect(shortHash("abc", 16)).toBe(ABC.slice(0, 16));
  });
});

describe("names already in users' caches stay the same", () => {
  test("a project folder: the start-up index, and sync's history by the same name", () => {
    expect(projectCacheName("/home/dev/project")).toBe("1afbf223bb0b58ba");
    expect(basename(startupIndexPath("/home/dev/project", "/home/dev"))).toBe("1afbf223bb0b58ba.index.sqlite");
  });

  test("a git repository's entry and a copy of a path in it", () => {
    expect(cacheKey("https://github.com/acme/skills.git")).toBe("github.com-acme-skills-c59d1649167264fa");
    const entry = new CacheEntry("https://github.com/acme/skills.git", "/home/dev");
    const commit = "0123456789abcdef0123456789abcdef01234567";
    expect(basename(entry.copyDir(commit, "skills/review"))).toBe(`${commit}-9782d7dd22c9`);
    expect(basename(entry.copyDir(commit, ""))).toBe(commit);
  });

  test("a well-known index's folder", () => {
    expect(wellKnownCacheKey("https://skills.example.com/.well-known/agent-skills/index.json")).toBe(
      "skills.example.com-443-e923edf5a7dd",
    );
  });
});

describe("hashes others already hold stay the same", () => {
  test("a SARIF finding's fingerprint (code scanning's alert identity)", () => {
    const finding = { rule: "R1", severity: "high" as const, message: "m", file: "SKILL.md", line: 3, column: 1 };
    const log = sarifLog([{ id: "review", layer: "team", uriPrefix: "skills/review/", findings: [finding] }], "0.1.0");
    const { runs } = log as { runs: { results: { partialFingerprints: Record<string, string> }[] }[] };
    expect(runs[0]!.results[0]!.partialFingerprints).toEqual({
      "skillCentralFinding/v1": "49c8d7546398c52ea57e0d0b54263149",
    });
  });

  test("a layer's contentHash (lockfiles) and the audit cache's key", () => {
    const files = [
      { path: "b/é.md", bytes: enc.encode("second") },
      { path: "SKILL.md", bytes: enc.encode("---\nname: x\n---\n") },
    ];
    expect(contentHash(files)).toBe("sha256:0fc679eabc17651fff60675d75580fc1c50270078c9dca1826fd5bc27c0895fd");
    const listed = [
      { path: "b.md", sha256: "2".repeat(64) },
      { path: "SKILL.md", sha256: "1".repeat(64) },
    ];
    // Its rules' version is part of the key (a new version re-audits): node:crypto frames it as before.
    const framed = `${RULES_VERSION}\0folder\0SKILL.md\0${"1".repeat(64)}\nb.md\0${"2".repeat(64)}\n`;
    expect(contentKey("folder", listed)).toBe(createHash("sha256").update(framed).digest("hex"));
  });
});
