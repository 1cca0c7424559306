import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateRawSync, gunzipSync, gzipSync } from "node:zlib";
import { ArchiveRefused, DEFAULT_ARCHIVE_LIMITS } from "../../src/storage/archive-entries.ts";
import { readTarGz, writeTarGz } from "../../src/storage/tar-gz.ts";
import { readZip } from "../../src/storage/zip.ts";
import { parseIndex } from "../../src/sources/well-known/parse-index.ts";
import { digestOf } from "../../src/storage/digest.ts";
import { serialiseIndex, WELL_KNOWN_SCHEMA } from "../../src/sources/well-known/format.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const limits = DEFAULT_ARCHIVE_LIMITS;

/** A minimal zip: each entry stored or deflated, with a Unix mode in its external attributes. */
function zip(entries: { name: string; bytes: Uint8Array; mode?: number; deflate?: boolean }[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = e.deflate ? deflateRawSync(e.bytes) : Buffer.from(e.bytes);
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(e.deflate ? 8 : 0, 8);
    local.writeUInt32LE(Bun.hash.crc32(e.bytes) >>> 0, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(e.bytes.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt8(3, 5);
    central.writeUInt16LE(e.deflate ? 8 : 0, 10);
    central.writeUInt32LE(Bun.hash.crc32(e.bytes) >>> 0, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(e.bytes.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, cd, end]));
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveRefused);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe(".tar.gz", () => {
  test("written deterministically (any input order), read back file for file", () => {
    const files = [
      { path: "SKILL.md", bytes: enc("---\nname: a\n---\n") },
      { path: "ref/deep/notes.md", bytes: enc("n".repeat(1000)) },
    ];
    const one = writeTarGz(files);
    expect(Buffer.from(writeTarGz([...files].reverse())).equals(Buffer.from(one))).toBe(true);
    expect(one.subarray(4, 8)).toEqual(new Uint8Array(4)); // no time in the gzip header
    expect(readTarGz(one, limits)).toEqual(files);
  });

  test("long paths use the ustar prefix and come back whole", () => {
    const path = `${"d".repeat(90)}/${"e".repeat(90)}/f.md`;
    expect(readTarGz(writeTarGz([{ path, bytes: enc("x") }]), limits)[0]?.path).toBe(path);
  });

  test("refuses absolute paths, .., a hard link, and more files than the cap", () => {
    expect(refusal(() => readTarGz(writeTarGz([{ path: "/etc/x", bytes: enc("") }]), limits))).toContain("absolute");
    expect(refusal(() => readTarGz(writeTarGz([{ path: "a/../../x", bytes: enc("") }]), limits))).toContain('".."');
    const tar = new Uint8Array(gunzipSync(writeTarGz([{ path: "l", bytes: enc("") }])));
    tar[156] = "1".charCodeAt(0);
    expect(refusal(() => readTarGz(tar, limits))).toContain("a hard link");
    const many = Array.from({ length: 4 }, (_, i) => ({ path: `f${i}`, bytes: enc("") }));
    expect(refusal(() => readTarGz(writeTarGz(many), { maxFiles: 3, maxBytes: 100 }))).toContain("more than 3 files");
  });
});

describe(".zip", () => {
  test("stored and deflated entries are read and checked against their CRC", () => {
    const files = readZip(
      zip([
        { name: "SKILL.md", bytes: enc("hello") },
        { name: "ref/", bytes: new Uint8Array(), mode: 0o040755 },
        { name: "ref/a.md", bytes: enc("a".repeat(5000)), deflate: true },
      ]),
      limits,
    );
    expect(files.map((f) => [f.path, f.bytes.length])).toEqual([
      ["SKILL.md", 5],
      ["ref/a.md", 5000],
    ]);
  });

  test("refuses a symbolic link, .., and a bomb over the byte cap", () => {
    expect(refusal(() => readZip(zip([{ name: "l", bytes: enc("/etc"), mode: 0o120777 }]), limits))).toContain(
      "symbolic link",
    );
    expect(refusal(() => readZip(zip([{ name: "../x", bytes: enc("") }]), limits))).toContain('".."');
    const bomb = zip([{ name: "z", bytes: new Uint8Array(2_000_000), deflate: true }]);
    expect(refusal(() => readZip(bomb, { maxFiles: 10, maxBytes: 1_000_000 }))).toContain("decompression bomb");
  });
});

/** `tar` with a header's typeflag set to `type` and its checksum made right again. */
function withType(tar: Uint8Array, type: string): Uint8Array {
  const copy = new Uint8Array(tar);
  copy[156] = type.charCodeAt(0);
  copy.set(enc("        "), 148);
  let sum = 0;
  for (const byte of copy.subarray(0, 512)) sum += byte;
  copy.set(enc(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
  return copy;
}

describe(".tar.gz from other writers, and damaged ones", () => {
  test("an archive made by GNU tar (./ prefix, folder entries, a long name) reads back file for file", () => {
    const dir = mkdtempSync(join(tmpdir(), "tar-gnu-"));
    try {
      const long = `ref/${"n".repeat(150)}.md`;
      mkdirSync(join(dir, "skill", "ref"), { recursive: true });
      writeFileSync(join(dir, "skill", "SKILL.md"), "skill");
      writeFileSync(join(dir, "skill", long), "long");
      for (const format of ["gnu", "pax"]) {
        const archive = join(dir, `${format}.tar.gz`);
        const made = Bun.spawnSync(["tar", `--format=${format}`, "-czf", archive, "-C", join(dir, "skill"), "."]);
        expect(made.exitCode).toBe(0);
        const files = readTarGz(new Uint8Array(readFileSync(archive)), limits);
        expect(files.map((f) => [f.path, new TextDecoder().decode(f.bytes)]).sort()).toEqual([
          ["SKILL.md", "skill"],
          [long, "long"],
        ]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a path too long for ustar is written with a pax header and comes back whole", () => {
    const path = `${"x".repeat(120)}/${"y".repeat(120)}/z.md`;
    expect(readTarGz(writeTarGz([{ path, bytes: enc("z") }]), limits)[0]?.path).toBe(path);
  });

  test("a header with a bad checksum, a stream cut short and an entry type we do not read are refused", () => {
    const tar = new Uint8Array(gunzipSync(writeTarGz([{ path: "SKILL.md", bytes: enc("x".repeat(600)) }])));
    const damaged = new Uint8Array(tar);
    damaged[0] = "Z".charCodeAt(0);
    expect(refusal(() => readTarGz(damaged, limits))).toContain("damaged (checksum failure)");
    expect(refusal(() => readTarGz(tar.subarray(0, 700), limits))).toContain("damaged (Truncated input");
    expect(refusal(() => readTarGz(withType(tar, "S"), limits))).toBe('"SKILL.md" is an entry of type "S"');
    expect(refusal(() => readTarGz(withType(tar, "6"), limits))).toBe('"SKILL.md" is a FIFO');
  });

  test("a gzip bomb stops at the cap; a gzip inside the gzip (which node-tar would inflate uncapped) is refused", () => {
    const bomb = writeTarGz([{ path: "z", bytes: new Uint8Array(8 * 1024 * 1024) }]);
    expect(refusal(() => readTarGz(bomb, { maxFiles: 10, maxBytes: 1024 * 1024 }))).toContain("decompression bomb");
    expect(refusal(() => readTarGz(gzipSync(bomb), limits))).toBe("it is compressed twice (a decompression bomb?)");
    const zstdMagic = new Uint8Array(1024);
    zstdMagic.set([0x28, 0xb5, 0x2f, 0xfd]);
    expect(refusal(() => readTarGz(zstdMagic, limits))).toContain("the tar stream is damaged");
  });
});

/** Sets an entry's recorded uncompressed size (local and central header) in a zip made by `zip()`. */
function withRecordedSize(archive: Uint8Array, size: number): Uint8Array {
  const copy = Buffer.from(archive);
  copy.writeUInt32LE(size, 22);
  copy.writeUInt32LE(size, copy.indexOf(Buffer.from([0x50, 0x4b, 1, 2])) + 24);
  return new Uint8Array(copy);
}

describe(".zip, damaged and lying", () => {
  test("an entry that inflates past its recorded size is a bomb, stopped at that size", () => {
    const liar = withRecordedSize(zip([{ name: "SKILL.md", bytes: new Uint8Array(4_000_000), deflate: true }]), 10);
    expect(refusal(() => readZip(liar, limits))).toContain("decompression bomb");
  });

  test("a CRC or size that does not match the bytes, a name given twice and encryption are refused", () => {
    const stored = zip([{ name: "SKILL.md", bytes: enc("hello") }]);
    const badCrc = Buffer.from(stored);
    badCrc[30 + "SKILL.md".length] = "j".charCodeAt(0); // "hello" becomes "jello"
    expect(refusal(() => readZip(new Uint8Array(badCrc), limits))).toContain(
      "does not match its recorded size and CRC-32",
    );
    expect(refusal(() => readZip(withRecordedSize(stored, 4), limits))).toContain("does not match its recorded size");
    const twice = zip([
      { name: "SKILL.md", bytes: enc("a") },
      { name: "SKILL.md", bytes: enc("b") },
    ]);
    expect(refusal(() => readZip(twice, limits))).toBe('"SKILL.md" appears twice');
    const encrypted = Buffer.from(stored);
    encrypted.writeUInt16LE(1, 6);
    encrypted.writeUInt16LE(1, encrypted.indexOf(Buffer.from([0x50, 0x4b, 1, 2])) + 8);
    expect(refusal(() => readZip(new Uint8Array(encrypted), limits))).toBe('"SKILL.md" is encrypted');
    expect(refusal(() => readZip(enc("PK not a zip"), limits))).toContain("is not a valid zip archive");
  });
});

describe("the index", () => {
  const digest = `sha256:${"a".repeat(64)}` as const;

  test("written sorted with $schema; read back with URLs resolved against the index URL (RFC 3986)", () => {
    const text = serialiseIndex([
      { name: "zeta", description: "Z", type: "skill-md", url: "zeta/SKILL.md", digest },
      { name: "alpha", description: "A", type: "archive", url: "/elsewhere/alpha.tar.gz", digest, version: "1.0.0" },
    ]);
    expect(JSON.parse(text).$schema).toBe(WELL_KNOWN_SCHEMA);
    const parsed = parseIndex(enc(text), "https://example.com/.well-known/agent-skills/v1.0.0/index.json");
    expect([...parsed.entries.keys()]).toEqual(["alpha", "zeta"]);
    expect(parsed.entries.get("alpha")?.href).toBe("https://example.com/elsewhere/alpha.tar.gz");
    expect(parsed.entries.get("zeta")?.href).toBe("https://example.com/.well-known/agent-skills/v1.0.0/zeta/SKILL.md");
  });

  test("an unknown type or a bad digest is skipped with its reason; an unknown $schema refuses the index", () => {
    const index = {
      $schema: WELL_KNOWN_SCHEMA,
      skills: [
        { name: "future", description: "F", type: "plugin", url: "f", digest },
        { name: "short", description: "S", type: "skill-md", url: "s", digest: "sha256:abc" },
        { name: "sneaky", description: "S", type: "skill-md", url: "file:///etc/passwd", digest },
      ],
    };
    const parsed = parseIndex(enc(JSON.stringify(index)), "https://example.com/index.json");
    expect(Object.fromEntries(parsed.skipped)).toEqual({
      future: 'its type "plugin" is not known',
      short: "its digest is not sha256:<64 lowercase hex digits>",
      sneaky: "its url is not an http:// or https:// URL",
    });
    expect(() =>
      parseIndex(enc(JSON.stringify({ ...index, $schema: "https://example.com/other.json" })), "https://x/i.json"),
    ).toThrow("is not one this version reads");
  });
});

/**
 * The spec's own figures: the Agent Skills Discovery RFC's worked SHA-256 values (its v0.2.0
 * draft's "Worked example": the digest of an artifact is the SHA-256 of its raw bytes, as now)
 * and the discovery index of its "Examples" section, read as a client reads it.
 */
describe("against the spec's examples", () => {
  test("digests: sha256: and 64 lowercase hex of the raw bytes, as the RFC's worked values", () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(digestOf(bytes("# Hello\n"))).toBe(
      "sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be",
    );
    expect(digestOf(bytes("#!/bin/sh\n"))).toBe(
      "sha256:a8076d3d28d21e02012b20eaf7dbf75409a6277134439025f282e368e3305abf",
    );
  });

  const SPEC_INDEX = {
    $schema: "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
    skills: [
      {
        name: "code-review",
        type: "skill-md",
        description: "Review code for bugs, security issues, and best practices.",
        url: "/.well-known/agent-skills/code-review/SKILL.md",
        digest: "sha256:c4d5e6f7...",
      },
      {
        name: "git-workflow",
        type: "skill-md",
        description: "Follow team Git conventions for branching and commits.",
        url: "/.well-known/agent-skills/git-workflow/SKILL.md",
        digest: "sha256:a7b8c9d0...",
      },
      {
        name: "wrangler",
        type: "archive",
        description: "Deploy and manage Cloudflare Workers projects.",
        url: "/.well-known/agent-skills/wrangler.tar.gz",
        digest: "sha256:f1e2d3c4...",
      },
    ],
  };
  const INDEX_URL = "https://example.com/.well-known/agent-skills/index.json";
  const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

  test("the spec's discovery index: its shape reads, its path-absolute URLs resolve against the index's", () => {
    // The example abbreviates its digests ("sha256:c4d5e6f7..."); with whole ones it reads entry for entry.
    const whole = {
      ...SPEC_INDEX,
      skills: SPEC_INDEX.skills.map((s, i) => ({ ...s, digest: `sha256:${String(i).repeat(64)}` })),
    };
    const parsed = parseIndex(encode(whole), INDEX_URL);
    expect([...parsed.skipped]).toEqual([]);
    expect([...parsed.entries.values()].map((e) => [e.name, e.type, e.href])).toEqual([
      ["code-review", "skill-md", "https://example.com/.well-known/agent-skills/code-review/SKILL.md"],
      ["git-workflow", "skill-md", "https://example.com/.well-known/agent-skills/git-workflow/SKILL.md"],
      ["wrangler", "archive", "https://example.com/.well-known/agent-skills/wrangler.tar.gz"],
    ]);
    // As printed, the abbreviated digests cannot verify anything: each entry is skipped, saying why.
    const printed = parseIndex(encode(SPEC_INDEX), INDEX_URL);
    expect(printed.entries.size).toBe(0);
    expect([...printed.skipped.values()]).toEqual(Array(3).fill("its digest is not sha256:<64 lowercase hex digits>"));
  });

  test("what we publish has the spec's shape: $schema, then entries of exactly its fields, sorted by name", () => {
    const entries = [
      {
        name: "b-skill",
        description: "B",
        type: "archive" as const,
        url: "b-skill.tar.gz",
        digest: `sha256:${"b".repeat(64)}` as const,
      },
      {
        name: "a-skill",
        description: "A",
        type: "skill-md" as const,
        url: "a-skill/SKILL.md",
        digest: `sha256:${"a".repeat(64)}` as const,
        version: "1.2.0",
      },
    ];
    const index = JSON.parse(serialiseIndex(entries)) as typeof SPEC_INDEX;
    expect(Object.keys(index)).toEqual(["$schema", "skills"]);
    expect(index.$schema).toBe(SPEC_INDEX.$schema);
    expect(index.skills.map((s) => s.name)).toEqual(["a-skill", "b-skill"]);
    const specFields = new Set([...Object.keys(SPEC_INDEX.skills[0]!), "version"]);
    for (const skill of index.skills) for (const key of Object.keys(skill)) expect(specFields.has(key)).toBe(true);
  });
});
