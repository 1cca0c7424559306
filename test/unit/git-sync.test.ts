import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../../src/diagnostics.ts";
import { allDiagnostics, loadSkills } from "../../src/load/load-skills.ts";
import { CacheEntry } from "../../src/sources/cache-entry.ts";
import { contentHash } from "../../src/sources/content-hash.ts";
import { resolveLayers } from "../../src/sources/resolve-layers.ts";
import { syncLayers, SyncRefused, type SyncMode, type SyncReport } from "../../src/sources/sync.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote, skill, type Remote } from "../helpers/git-remote.ts";

// The cache must be the fixture's, whatever the machine running the tests has set.
delete process.env.XDG_CACHE_HOME;
delete process.env.SKILL_CENTRAL_CACHE_DIR;

let fixture: Fixture;
let remote: Remote;

beforeEach(() => {
  fixture = makeFixture();
  remote = makeRemote(fixture.root);
});
afterEach(() => fixture.cleanup());

function projectConfig(layer = "{ name: team, priority: 50, git: URL, ref: main, path: skills }"): void {
  fixture.write("skill-central.yaml", `builtin: false\nlayers:\n  - ${layer.replaceAll("URL", remote.url)}\n`);
}

async function sync(
  mode: SyncMode = "sync",
  layer?: string,
  home = fixture.home,
): Promise<SyncReport & { warnings: Diagnostic[] }> {
  const warnings: Diagnostic[] = [];
  const report = await syncLayers({ cwd: fixture.cwd, home, mode, ...(layer !== undefined && { layer }) }, (d) =>
    warnings.push(d),
  );
  return { ...report, warnings };
}

async function served(home = fixture.home): Promise<{ ids: string[]; diagnostics: Diagnostic[] }> {
  const result = await loadSkills({ cwd: fixture.cwd, home });
  return { ids: result.registry.served().map((c) => c.skill.id), diagnostics: allDiagnostics(result) };
}

function lockfile(): {
  layers: Record<string, { url: string; ref: string; path: string; commit: string; contentHash: string }>;
} {
  return JSON.parse(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8"));
}

describe("first sync", () => {
  test("fetches the ref, writes a read-only copy and the lock entry; the loader serves the copy", async () => {
    const commit = remote.commit({
      "skills/alpha.yaml": skill("alpha"),
      "skills/nested/beta.yaml": skill("beta"),
      "README.md": "not a skill folder",
    });
    projectConfig();
    expect((await served()).ids).toEqual([]);

    const report = await sync();
    expect(report.ok).toBe(true);
    expect(report.layers).toMatchObject([{ name: "team", outcome: "locked", after: commit, locked: true }]);
    expect(report.layers[0]!.changes).toEqual({
      added: [
        { id: "alpha", file: "alpha.yaml" },
        { id: "beta", file: "nested/beta.yaml" },
      ],
      removed: [],
      changed: [],
    });
    expect(report.lockfile?.written).toBe(true);

    const hash = contentHash([
      { path: "alpha.yaml", bytes: new TextEncoder().encode(skill("alpha")) },
      { path: "nested/beta.yaml", bytes: new TextEncoder().encode(skill("beta")) },
    ]);
    expect(lockfile()).toEqual({
      layers: { team: { url: remote.url, ref: "main", path: "skills", commit, contentHash: hash } },
      lockfileVersion: 1,
    } as never);

    const config = await resolveLayers({ cwd: fixture.cwd, home: fixture.home }, () => {});
    const team = config.layers[0]!;
    expect(team.provenance).toEqual({ url: remote.url, commit, path: "skills" });
    expect(team.dir).toContain(join(".cache", "skill-central", "git"));
    expect(readdirSync(team.dir).sort()).toEqual(["alpha.yaml", "nested"]);
    // Read-only: files and folders.
    expect(statSync(join(team.dir, "alpha.yaml")).mode & 0o222).toBe(0);
    expect(statSync(join(team.dir, "nested")).mode & 0o222).toBe(0);
    expect(config.inputs).toContain(join(fixture.cwd, "skill-central.lock"));

    const { ids, diagnostics } = await served();
    expect(ids).toEqual(["alpha", "beta"]);
    expect(diagnostics).toEqual([]);
  });

  test("a second sync changes nothing and rewrites nothing", async () => {
    remote.commit({ "skills/alpha.yaml": skill("alpha") });
    projectConfig();
    await sync();
    const before = readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8");
    const again = await sync();
    expect(again.layers[0]!.outcome).toBe("unchanged");
    expect(again.layers[0]!.notes).toEqual([]);
    expect(again.lockfile?.written).toBe(false);
    expect(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8")).toBe(before);
  });

  test("a missing path in the commit fails with a message naming it; no lock entry is written", async () => {
    remote.commit({ "other/alpha.yaml": skill("alpha") });
    projectConfig();
    const report = await sync();
    expect(report.ok).toBe(false);
    expect(report.layers[0]).toMatchObject({ outcome: "failed" });
    expect(report.layers[0]!.problem).toContain('has no folder "skills"');
    expect(existsSync(join(fixture.cwd, "skill-central.lock"))).toBe(false);
  });

  test("tags and commit ids work as refs; the whole repository works as a layer", async () => {
    const first = remote.commit({ "a.yaml": skill("tagged") });
    remote.tag("v1", first);
    remote.commit({ "a.yaml": skill("later") });
    projectConfig(
      `{ name: pinned, priority: 50, git: URL, ref: v1 }\n  - { name: exact, priority: 40, git: URL, ref: ${first} }`,
    );
    const report = await sync();
    expect(report.layers.map((l) => [l.name, l.outcome, l.after])).toEqual([
      ["pinned", "locked", first],
      ["exact", "locked", first],
    ]);
    const { ids } = await served();
    expect(ids).toEqual(["tagged"]);
  });

  test("a user layer follows its ref without a lock entry", async () => {
    const commit = remote.commit({ "mine.yaml": skill("mine") });
    fixture.write(
      "~/.skill-central/config.yaml",
      `builtin: false\nlayers:\n  - { name: mine, priority: 70, git: ${remote.url} }\n`,
    );
    fixture.write("skill-central.yaml", "pageSize: 10\n");
    const report = await sync();
    expect(report.layers).toMatchObject([{ name: "mine", outcome: "fetched", locked: false, after: commit }]);
    expect(existsSync(join(fixture.cwd, "skill-central.lock"))).toBe(false);
    expect((await served()).ids).toEqual(["mine"]);
    const next = remote.commit({ "mine.yaml": skill("mine"), "two.yaml": skill("two") });
    const again = await sync();
    expect(again.layers).toMatchObject([
      { outcome: "updated", before: commit, after: next, changes: { added: [{ id: "two" }] } },
    ]);
    expect((await served()).ids).toEqual(["mine", "two"]);
  });
});

describe("update and check", () => {
  test("sync reports that the ref moved; --update moves the lock and lists the skill changes", async () => {
    const a = remote.commit({ "skills/alpha.yaml": skill("alpha"), "skills/old.yaml": skill("old") });
    projectConfig();
    await sync();
    const b = remote.commit({ "skills/alpha.yaml": skill("alpha", "new body"), "skills/beta.yaml": skill("beta") });

    const plain = await sync();
    expect(plain.layers[0]).toMatchObject({ outcome: "unchanged", after: a });
    expect(plain.layers[0]!.notes).toEqual([
      `main is now at ${b.slice(0, 12)}; \`skill-central sync --update team\` moves the lock there`,
    ]);
    expect(lockfile().layers.team!.commit).toBe(a);
    expect((await served()).ids).toEqual(["alpha", "old"]);

    const update = await sync("update", "team");
    expect(update.layers[0]).toMatchObject({ outcome: "updated", before: a, after: b });
    expect(update.layers[0]!.changes).toEqual({
      added: [{ id: "beta", file: "beta.yaml" }],
      removed: [{ id: "old", file: "old.yaml" }],
      changed: [{ id: "alpha", file: "alpha.yaml" }],
    });
    expect(lockfile().layers.team!.commit).toBe(b);
    expect((await served()).ids).toEqual(["alpha", "beta"]);
  });

  test("--update of a layer that is not a git layer, or does not exist, is refused", async () => {
    remote.commit({ "skills/a.yaml": skill("a") });
    projectConfig(
      "{ name: team, priority: 50, git: URL, path: skills }\n  - { name: local, priority: 1, path: ./local }",
    );
    expect(sync("update", "local")).rejects.toBeInstanceOf(SyncRefused);
    expect(sync("update", "nope")).rejects.toThrow('no layer named "nope"; git and url layers: team');
  });

  test("--check: nothing fetched or written; out of date when the lock, the config or a copy disagree", async () => {
    remote.commit({ "skills/alpha.yaml": skill("alpha") });
    projectConfig();
    const unlocked = await sync("check");
    expect(unlocked.ok).toBe(false);
    expect(unlocked.layers[0]).toMatchObject({
      outcome: "out-of-date",
      problem: "not in the lockfile; run skill-central sync",
    });
    expect(existsSync(join(fixture.cwd, "skill-central.lock"))).toBe(false);
    expect(existsSync(join(fixture.home, ".cache"))).toBe(false);

    await sync();
    expect((await sync("check")).ok).toBe(true);

    // A fresh machine (another home): the lock is right, the copy is missing.
    const fresh = await sync("check", undefined, join(fixture.root, "other-home"));
    expect(fresh.layers[0]!.problem).toContain("no local copy of");

    // The config moved to another ref: the lock no longer matches.
    projectConfig("{ name: team, priority: 50, git: URL, ref: release, path: skills }");
    expect((await sync("check")).layers[0]!.problem).toContain("the lock entry is for another url, ref or path");

    // A lock entry for a layer no longer declared.
    projectConfig();
    const lock = lockfile();
    writeFileSync(
      join(fixture.cwd, "skill-central.lock"),
      JSON.stringify({ ...lock, layers: { ...lock.layers, gone: lock.layers.team } }, null, 2),
    );
    const stale = await sync("check");
    expect(stale.ok).toBe(false);
    expect(stale.lockfile?.stale).toEqual(["gone"]);
    // A plain sync removes it.
    const cleaned = await sync();
    expect(cleaned.lockfile).toMatchObject({ written: true, stale: ["gone"] });
    expect(Object.keys(lockfile().layers)).toEqual(["team"]);
  });

  test("--frozen fetches what the lock says on a fresh machine and never writes the lock", async () => {
    const a = remote.commit({ "skills/alpha.yaml": skill("alpha") });
    projectConfig();
    const refused = await sync("frozen");
    expect(refused.layers[0]).toMatchObject({ outcome: "out-of-date", problem: "not in the lockfile" });
    expect(existsSync(join(fixture.cwd, "skill-central.lock"))).toBe(false);

    await sync();
    remote.commit({ "skills/alpha.yaml": skill("alpha", "moved on") });
    const other = join(fixture.root, "ci-home");
    const ci = await sync("frozen", undefined, other);
    expect(ci.ok).toBe(true);
    expect(ci.layers[0]).toMatchObject({ after: a });
    expect((await served(other)).ids).toEqual(["alpha"]);
  });

  test("`only` syncs the named layers and leaves the others as they are (the server fetching a missing copy)", async () => {
    const second = makeRemote(fixture.root, "second.git");
    remote.commit({ "skills/alpha.yaml": skill("alpha") });
    second.commit({ "skills/gamma.yaml": skill("gamma") });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main, path: skills }\n  - { name: other, priority: 40, git: ${second.url}, ref: main, path: skills }\n`,
    );
    await sync();
    const other = join(fixture.root, "fresh-home");
    const report = await syncLayers(
      { cwd: fixture.cwd, home: other, mode: "frozen", only: new Set(["team"]) },
      () => {},
    );
    expect(report.layers.map((l) => l.name)).toEqual(["team"]);
    expect((await served(other)).ids).toEqual(["alpha"]);
    // The other layer's cache entry was never made: nothing was fetched for it.
    expect(existsSync(new CacheEntry(second.url, other).dir)).toBe(false);
  });
});

describe("verification", () => {
  test("a copy changed on disk is never served, even with its size and time kept, and sync restores it", async () => {
    remote.commit({ "skills/alpha.yaml": skill("alpha"), "skills/beta.yaml": skill("beta") });
    projectConfig();
    await sync();
    const dir = (await resolveLayers({ cwd: fixture.cwd, home: fixture.home }, () => {})).layers[0]!.dir;
    // Same size, and the modification time put back: only the change time tells.
    const file = join(dir, "alpha.yaml");
    const { mtime, size } = statSync(file);
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);
    writeFileSync(file, skill("alpha", "Body of alphX"));
    utimesSync(file, mtime, mtime);
    expect(statSync(file).size).toBe(size);

    // A fresh process: nothing verified yet. (This one has verified the copy; the loader in a
    // new process would hash it again, which is what the e2e tests exercise.)
    const load = Bun.spawnSync(
      [
        process.execPath,
        "-e",
        `const { loadSkills } = await import(${JSON.stringify(join(import.meta.dir, "../../src/load/load-skills.ts"))}); const r = await loadSkills({ cwd: ${JSON.stringify(fixture.cwd)}, home: ${JSON.stringify(fixture.home)} }); console.error(JSON.stringify({ ids: r.registry.served().map((c) => c.skill.id), codes: r.diagnostics.map((d) => d.code) }));`,
      ],
      { env: { PATH: process.env.PATH ?? "" }, stderr: "pipe" },
    );
    expect(JSON.parse(load.stderr.toString())).toEqual({ ids: [], codes: ["git-copy-mismatch"] });

    const restore = Bun.spawnSync(
      [
        process.execPath,
        "-e",
        `const { syncLayers } = await import(${JSON.stringify(join(import.meta.dir, "../../src/sources/sync.ts"))}); const r = await syncLayers({ cwd: ${JSON.stringify(fixture.cwd)}, home: ${JSON.stringify(fixture.home)}, mode: "sync" }, () => {}); console.error(JSON.stringify(r.layers.map((l) => l.outcome)));`,
      ],
      { env: { PATH: process.env.PATH ?? "" }, stderr: "pipe" },
    );
    expect(JSON.parse(restore.stderr.toString())).toEqual(["restored"]);
    expect(readFileSync(join(dir, "alpha.yaml"), "utf8")).toBe(skill("alpha"));
    // The restored copy is sealed again: a new process trusts it without hashing every file.
    const seal = JSON.parse(
      readFileSync(new CacheEntry(remote.url, fixture.home).sealFile(lockfile().layers.team!.commit, "skills"), "utf8"),
    );
    expect(seal.contentHash).toBe(lockfile().layers.team!.contentHash);
  });

  test("a lock whose contentHash does not match the commit's files is refused; nothing is written", async () => {
    remote.commit({ "skills/alpha.yaml": skill("alpha") });
    projectConfig();
    await sync();
    const lock = lockfile();
    lock.layers.team!.contentHash = `sha256:${"1".repeat(64)}`;
    writeFileSync(join(fixture.cwd, "skill-central.lock"), JSON.stringify(lock, null, 2));
    const other = join(fixture.root, "other-home");
    const report = await sync("sync", undefined, other);
    expect(report.layers[0]!.outcome).toBe("failed");
    expect(report.layers[0]!.problem).toContain("do not match the lock's contentHash");
    const entry = new CacheEntry(remote.url, other);
    expect(existsSync(entry.copies) ? readdirSync(entry.copies) : []).toEqual([]);
    expect((await served(other)).diagnostics.map((d) => d.code)).toEqual(["git-copy-missing"]);
  });
});

describe("old copies", () => {
  test("a sync removes copies unused for 30 days, never one it serves or one a ref follows", async () => {
    const a = remote.commit({ "skills/a.yaml": skill("a") });
    projectConfig();
    await sync();
    const b = remote.commit({ "skills/b.yaml": skill("b") });
    await sync("update");
    // A user layer of the same repository, following main from the root: its copy is current.
    fixture.write(
      "~/.skill-central/config.yaml",
      `layers:\n  - { name: mine, priority: 70, git: ${remote.url}, ref: main }\n`,
    );
    await sync();
    const c = remote.commit({ "skills/c.yaml": skill("c") });
    const entry = new CacheEntry(remote.url, fixture.home);
    const old = new Date(Date.now() - 40 * 86_400_000);
    for (const [commit, path] of [
      [a, "skills"],
      [b, "skills"],
      [b, ""],
    ] as const)
      utimesSync(entry.sealFile(commit, path), old, old);
    fixture.write("~/.skill-central/config.yaml", "layers: []\n");

    const report = await sync("update", "team");
    expect(report.layers[0]).toMatchObject({ before: b, after: c });
    const copies = readdirSync(entry.copies).sort();
    // a: unused for 40 days, gone. b (skills): the copy just left, unused for 40 days, gone.
    // b (root): current for the user layer's ref, kept though old. c: the one served now.
    expect(copies).toEqual([entry.copyDir(b, ""), entry.copyDir(c, "skills")].map((d) => d.split("/").pop()!).sort());
    expect(existsSync(entry.sealFile(a, "skills"))).toBe(false);
    expect((await served()).ids).toEqual(["c"]);
  });
});

describe("offline and orphaned", () => {
  test("with the remote gone, the copy keeps serving; sync says it could not ask the remote", async () => {
    remote.commit({ "skills/alpha.yaml": skill("alpha") });
    projectConfig();
    await sync();
    renameSync(remote.dir, `${remote.dir}.away`);
    expect((await served()).ids).toEqual(["alpha"]);
    const report = await sync();
    expect(report.ok).toBe(true);
    expect(report.layers[0]!.outcome).toBe("unchanged");
    expect(report.layers[0]!.notes[0]).toContain("cannot reach the remote");
    // A fresh machine has nothing to serve and says why.
    const fresh = await sync("sync", undefined, join(fixture.root, "fresh"));
    expect(fresh.layers[0]!.outcome).toBe("failed");
    expect(fresh.layers[0]!.problem).toContain("cannot fetch commit");
  });

  test("a force-pushed remote: the locked commit is orphaned, still served from the cache, and reported", async () => {
    const a = remote.commit({ "skills/alpha.yaml": skill("alpha") });
    projectConfig();
    await sync();
    const c = remote.forcePush({ "skills/gamma.yaml": skill("gamma") });

    expect((await served()).ids).toEqual(["alpha"]);
    const report = await sync();
    expect(report.layers[0]).toMatchObject({ outcome: "unchanged", after: a });
    expect(report.layers[0]!.notes).toEqual([
      `the locked commit ${a.slice(0, 12)} is no longer on the remote (its history was rewritten: a force-push?); still served from the local copy; \`skill-central sync --update team\` locks the ref's current commit`,
      `main is now at ${c.slice(0, 12)}; \`skill-central sync --update team\` moves the lock there`,
    ]);
    expect((await new CacheEntry(remote.url, fixture.home).fetchRecord()).orphaned?.[a]).toBeNumber();
    const check = await sync("check");
    expect(check.ok).toBe(false);
    expect(check.layers[0]!.problem).toContain("no longer on the remote");
    expect((await served()).ids).toEqual(["alpha"]);

    // A machine without the commit cannot get it.
    const fresh = await sync("sync", undefined, join(fixture.root, "fresh"));
    expect(fresh.layers[0]!.outcome).toBe("failed");
    expect(fresh.layers[0]!.problem).toContain("no longer on the remote");
    expect(fresh.layers[0]!.problem).toContain("not in this machine's cache");

    const update = await sync("update");
    expect(update.layers[0]).toMatchObject({
      outcome: "updated",
      before: a,
      after: c,
      changes: { added: [{ id: "gamma" }], removed: [{ id: "alpha" }] },
    });
    expect((await new CacheEntry(remote.url, fixture.home).fetchRecord()).orphaned?.[c]).toBeUndefined();
  });
});

describe("hostile repositories", () => {
  /** Each is pushed after a good commit is locked: it must be refused and the good copy keep serving. */
  async function refused(tree: Parameters<Remote["commit"]>[0], expected: string): Promise<void> {
    const good = remote.commit({ "skills/good.yaml": skill("good") });
    projectConfig();
    await sync();
    remote.commit(tree);
    const report = await sync("update");
    expect(report.ok).toBe(false);
    expect(report.layers[0]!.outcome).toBe("failed");
    expect(report.layers[0]!.problem).toContain(expected);
    expect(lockfile().layers.team!.commit).toBe(good);
    const entry = new CacheEntry(remote.url, fixture.home);
    expect(readdirSync(entry.copies)).toEqual([entry.copyDir(good, "skills").split("/").pop()!]);
    expect((await served()).ids).toEqual(["good"]);
  }

  test("a symlink to /etc/passwd", () =>
    refused(
      { "skills/good.yaml": skill("good"), "skills/passwd.yaml": { symlink: "/etc/passwd" } },
      "passwd.yaml: symbolic links are not copied",
    ));

  test("a submodule", () =>
    refused(
      { "skills/good.yaml": skill("good"), "skills/vendor": { submodule: "1".repeat(40) } },
      "vendor: submodules are not copied",
    ));

  test("a ../ path (refused by git's own object checks as it arrives)", () =>
    refused(
      { "skills/good.yaml": skill("good"), "skills/../escape.yaml": skill("escape") },
      "hasDotdot: contains '..'",
    ));

  test("names that collide by case", () =>
    refused(
      { "skills/Review.yaml": skill("review"), "skills/review.yaml": skill("review2") },
      "review.yaml: collides with Review.yaml",
    ));

  test("names that collide by Unicode normalisation (NFC and NFD)", () =>
    refused(
      { "skills/caf\u00e9.yaml": skill("cafe1"), "skills/cafe\u0301.yaml": skill("cafe2") },
      "the same name in another Unicode normal form",
    ));

  test("a huge file", () =>
    refused(
      { "skills/good.yaml": skill("good"), "skills/huge.bin": new Uint8Array(5 * 1024 * 1024) },
      "huge.bin: 5242880 bytes is over the limit",
    ));

  test("a YAML alias bomb is copied like any file and skipped by the loader; the rest is served", async () => {
    const bomb = [
      "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
      ...["b", "c", "d", "e", "f", "g", "h", "i"].map(
        (k, i) => `${k}: &${k} [${Array(9).fill(`*${"abcdefgh"[i]}`).join(", ")}]`,
      ),
      "id: bomb",
      "description: x",
      "type: prompt",
      "prompt: x",
    ].join("\n");
    remote.commit({ "skills/good.yaml": skill("good"), "skills/bomb.yaml": bomb });
    projectConfig();
    expect((await sync()).ok).toBe(true);
    const { ids, diagnostics } = await served();
    expect(ids).toEqual(["good"]);
    expect(diagnostics.map((d) => d.message).join("\n")).toContain("resource exhaustion");
  });
});
