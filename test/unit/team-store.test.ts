import { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { skillUsage, usageOverview } from "../../src/board/insights.ts";
import { readStoreSetting } from "../../src/config/store-settings.ts";
import { loadSkills } from "../../src/load/load-skills.ts";
import { makeFixture } from "../helpers/fixture.ts";
import { mergeUsageSettings, defaultUsageSettings } from "../../src/config/usage-settings.ts";
import { folderProject, serverProject } from "../../src/storage/project-identity.ts";
import { shownStore, storeLocation } from "../../src/storage/store-location.ts";
import { openUsageDatabase } from "../../src/storage/usage-sqlite.ts";
import { NO_PROJECT, readUsage, UsageRecorder, type SkillUseRow } from "../../src/storage/usage-store.ts";
import { USAGE_SCHEMA_VERSION } from "../../src/storage/usage-schema.ts";
import { describePostgres, PG_PASSWORD, type Postgres, startPostgres } from "../helpers/postgres.ts";

/**
 * Issue 49's team store below the server: one store interface over SQLite and PostgreSQL, its
 * versioned migrations (today's usage.db included), what a use records, the bounded buffer that
 * keeps serving free of the store, reports aggregated by the database, and the password that
 * never reaches a config, a log or an error.
 */

const FIXTURE_V1 = join(import.meta.dir, "..", "fixtures", "usage-store", "usage-v1.db");
/** The fixture's rows are from 2026-11-20 to 2026-11-25 (made by skill-central before issue 49). */
const FIXTURE_WINDOW = { since: Date.UTC(2026, 10, 1), until: Date.UTC(2026, 11, 1) };

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const tempDir = () => {
  dir = mkdtempSync(join(tmpdir(), "team-store-"));
  return dir;
};

const use = (skill: string, extra: Partial<SkillUseRow> = {}): Omit<SkillUseRow, "at"> & { at?: number } => ({
  skill,
  layer: "team",
  via: "prompts/get",
  outcome: "ok",
  ...extra,
});

/** A recorder, its warnings, and a way to wait for its buffer to empty (the store's event, not a sleep). */
function recorderOn(store: string, options: { buffer?: number; env?: Record<string, string | undefined> } = {}) {
  const warnings: string[] = [];
  const recorder = new UsageRecorder({
    store,
    keepDays: 36_500,
    warn: (m) => warnings.push(m),
    ...(options.buffer !== undefined && { buffer: options.buffer }),
    ...(options.env !== undefined && { env: options.env }),
  });
  return { recorder, warnings };
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe("migrations of a SQLite store", () => {
  test("today's usage.db (made by skill-central before versions) is migrated forward: rows kept, no project, refusals apart", async () => {
    const path = join(tempDir(), "usage.db");
    copyFileSync(FIXTURE_V1, path);
    const read = await readUsage(path, FIXTURE_WINDOW);
    expect(read.problem).toBeUndefined();
    const byId = Object.fromEntries(read.skills.map((s) => [s.skill, s]));
    expect(byId["review-pr"]).toMatchObject({
      uses: 4,
      refused: 0,
      outcomes: { ok: 3, error: 1 },
      clients: { "claude-code": 2, "cursor-vscode": 2 },
      callers: 2,
      projects: { [NO_PROJECT]: 4 },
    });
    expect(byId["api-design"]).toMatchObject({
      uses: 2,
      outcomes: { ok: 1, declined: 1 },
      clients: { "claude-code": 1, unknown: 1 },
    });
    const db = new Database(path, { readonly: true });
    try {
      expect(db.query<{ version: number }, []>("SELECT version FROM store_schema").get()?.version).toBe(
        USAGE_SCHEMA_VERSION,
      );
      const columns = db
        .query<{ name: string }, []>("PRAGMA table_info(uses)")
        .all()
        .map((c) => c.name);
      expect(columns).toEqual(expect.arrayContaining(["project", "digest"]));
      expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM uses").get()?.n).toBe(6);
    } finally {
      db.close();
    }
  });

  test("a recorder writing into today's usage.db migrates it and adds its rows with project and digest", async () => {
    const path = join(tempDir(), "usage.db");
    copyFileSync(FIXTURE_V1, path);
    const { recorder, warnings } = recorderOn(path);
    recorder.record(
      use("review-pr", { at: FIXTURE_WINDOW.since + 1, project: "dir:0123456789abcdef", digest: "sha256:ab" }),
    );
    await recorder.close();
    expect(warnings).toEqual([]);
    const [review] = (await readUsage(path, { ...FIXTURE_WINDOW, skill: "review-pr" })).skills;
    expect(review?.projects).toEqual({ [NO_PROJECT]: 4, "dir:0123456789abcdef": 1 });
  });

  test("a store newer than this binary is refused with a clear error, and never written", async () => {
    const path = join(tempDir(), "usage.db");
    const db = openUsageDatabase(path, 0);
    db.run("UPDATE store_schema SET version = 99");
    db.close();
    const before = readFileSync(path);
    const read = await readUsage(path, { since: 0 });
    expect(read.problem).toContain(
      "has schema version 99, newer than this skill-central knows (3): upgrade skill-central",
    );
    const { recorder, warnings } = recorderOn(path);
    recorder.record(use("a"));
    recorder.record(use("b"));
    await recorder.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("schema version 99");
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});

describe("reports aggregated by the store", () => {
  test("per skill: uses by outcome, refusals apart, distinct callers and clients, projects, last use; filters by project and client", async () => {
    const path = join(tempDir(), "usage.db");
    const { recorder } = recorderOn(path);
    const t = Date.UTC(2026, 11, 1);
    recorder.record(use("a", { at: t, client: "claude-code", caller: "alice", project: "p1" }));
    recorder.record(use("a", { at: t + 1, client: "claude-code", caller: "bob", project: "p1", outcome: "error" }));
    recorder.record(use("a", { at: t + 2, client: "cursor", caller: "alice", project: "p2" }));
    recorder.record(use("a", { at: t + 3, client: "cursor", caller: "eve", project: "p2", outcome: "refused" }));
    recorder.record(use("b", { at: t + 4, client: "cursor", project: "p2", outcome: "refused" }));
    await recorder.close();
    const window = { since: t - 1, until: t + 10 };
    const { skills } = await readUsage(path, window);
    expect(skills.map((s) => [s.skill, s.uses, s.refused, s.callers, s.lastUsed - t])).toEqual([
      ["a", 3, 1, 2, 2],
      ["b", 0, 1, 0, 4],
    ]);
    expect(skills[0]).toMatchObject({
      outcomes: { ok: 2, error: 1, refused: 1 },
      clients: { "claude-code": 2, cursor: 1 },
      projects: { p1: 2, p2: 1 },
    });
    const p2 = await readUsage(path, { ...window, project: "p2" });
    expect(p2.skills.map((s) => [s.skill, s.uses, s.refused])).toEqual([
      ["a", 1, 1],
      ["b", 0, 1],
    ]);
    const claude = await readUsage(path, { ...window, client: "claude-code" });
    expect(claude.skills.map((s) => [s.skill, s.uses])).toEqual([["a", 2]]);
  });

  test("whole days are read from the roll-ups a trigger keeps (whatever inserted the row), the window's ends from the rows: every count exact", async () => {
    const path = join(tempDir(), "usage.db");
    const db = openUsageDatabase(path, 0);
    const t0 = Date.UTC(2026, 10, 1, 7, 13);
    const rows: { at: number; skill: string; caller: string | null; outcome: string }[] = [];
    // Rows written straight by SQL, as another tool (or an older skill-central) would: the trigger rolls them up.
    const insert = db.prepare(
      "INSERT INTO uses (at, skill, layer, client, caller, project, outcome, via) VALUES (?, ?, 'team', 'c', ?, 'p', ?, 'tools/call')",
    );
    for (let i = 0; i < 400; i++) {
      const row = {
        at: t0 + i * 5_231_017,
        skill: `s${i % 3}`,
        caller: i % 5 === 0 ? null : `u${i % 7}`,
        outcome: i % 11 === 0 ? "refused" : "ok",
      };
      rows.push(row);
      insert.run(row.at, row.skill, row.caller, row.outcome);
    }
    db.close();
    const last = rows.at(-1)!.at;
    for (const [since, until] of [
      [t0 + 3_600_000, last - 7_777_777],
      [t0 - 86_400_000, last + 1],
      [Date.UTC(2026, 10, 5), Date.UTC(2026, 10, 9) - 1],
      [t0 + 100, t0 + 5_000_000],
    ] as const) {
      const within = rows.filter((r) => r.at >= since && r.at <= until);
      const { skills } = await readUsage(path, { since, until, buckets: 10 });
      for (const skill of ["s0", "s1", "s2"]) {
        const mine = within.filter((r) => r.skill === skill);
        const used = mine.filter((r) => r.outcome !== "refused");
        const found = skills.find((s) => s.skill === skill);
        expect([skill, found?.uses ?? 0, found?.refused ?? 0, found?.callers ?? 0]).toEqual([
          skill,
          used.length,
          mine.length - used.length,
          new Set(used.flatMap((r) => (r.caller === null ? [] : [r.caller]))).size,
        ]);
        if (found !== undefined) expect(found.buckets.reduce((a, b) => a + b, 0)).toBe(used.length);
      }
    }
    // Pruning drops the rows and the roll-ups' days before the cutoff.
    const { recorder } = recorderOn(path);
    const pruning = new UsageRecorder({ store: path, keepDays: 1, warn: () => {}, now: () => last });
    pruning.record(use("s0", { at: last }));
    await pruning.close();
    await recorder.close();
    const kept = await readUsage(path, { since: 0, until: last + 1 });
    expect(kept.skills.reduce((n, s) => n + s.uses + s.refused, 0)).toBe(
      rows.filter((r) => r.at >= last - 86_400_000).length + 1,
    );
  });

  test("a project's identity is a hash of its real path (never the path), or the HTTP server's public name", () => {
    const folder = tempDir();
    const id = folderProject(folder);
    expect(id).toMatch(/^dir:[0-9a-f]{16}$/);
    expect(id).not.toContain(folder);
    expect(folderProject(`${folder}/.`)).toBe(id);
    expect(serverProject("https://skills.example.com/mcp?x=1")).toBe("http:skills.example.com/mcp");
  });
});

describe("the `store:` key", () => {
  const read = (value: unknown, origin: "user" | "project" = "user") => {
    const problems: { message: string; path: readonly (string | number)[] }[] = [];
    const setting = readStoreSetting(
      value,
      (p) => `/abs/${p}`,
      (p) => problems.push(p),
      origin,
    );
    return { setting, problems };
  };

  test("a path, a postgres:// URL, or { url, passwordEnv }; a URL holding a password is refused without repeating it", () => {
    expect(read("state.db").setting).toEqual({ store: "/abs/state.db" });
    expect(read("postgresql://skills@db.example.com:5432/skills").setting).toEqual({
      store: "postgresql://skills@db.example.com:5432/skills",
    });
    expect(read({ url: "postgres://skills@db/skills", passwordEnv: "TEAM_DB_PW" }).setting).toEqual({
      store: "postgres://skills@db/skills",
      passwordEnv: "TEAM_DB_PW",
    });
    const leaked = read("postgres://skills:hunter2-secret@db/skills");
    expect(leaked.setting).toBeUndefined();
    expect(leaked.problems).toHaveLength(1);
    expect(leaked.problems[0]!.message).toContain("holds a password");
    expect(JSON.stringify(leaked.problems)).not.toContain("hunter2-secret");
    const inQuery = read("postgres://skills@db/skills?sslmode=require&password=hunter2-secret");
    expect(inQuery.setting).toBeUndefined();
    expect(JSON.stringify(inQuery.problems)).not.toContain("hunter2-secret");
  });

  test("a project's config may not name the store (a cloned repository would receive the user's history)", () => {
    const { setting, problems } = read("postgres://attacker@evil.example/x", "project");
    expect(setting).toBeUndefined();
    expect(problems.map((p) => p.message)).toEqual(["store is a user setting; ignored in a project's config"]);
  });

  test("usage.store wins for the usage history; else the top-level store; else the default file", () => {
    const defaults = defaultUsageSettings("/home/u", {}, "linux");
    const team = { store: "postgres://skills@db/skills", passwordEnv: "TEAM_DB_PW" };
    expect(mergeUsageSettings(defaults, undefined, undefined, team)).toMatchObject(team);
    expect(mergeUsageSettings(defaults, { store: "/mine.db" }, undefined, team)).toEqual({
      ...defaults,
      store: "/mine.db",
    });
    expect(mergeUsageSettings(defaults, { store: "off" }, undefined, team).store).toBe("off");
    expect(mergeUsageSettings(defaults, undefined, undefined, undefined)).toEqual(defaults);
  });

  test("a store is named in messages without password or query", () => {
    expect(shownStore(storeLocation("postgres://skills@db.example.com:5432/skills?sslmode=require"))).toBe(
      "postgres://skills@db.example.com:5432/skills",
    );
  });
});

describePostgres("the store on PostgreSQL (a throwaway cluster)", () => {
  let pg: Postgres;
  let database = 0;
  beforeAll(() => {
    pg = startPostgres();
  });
  afterAll(() => pg?.destroy());

  /** A fresh database of the cluster for one test: its URL (no password: PGPASSWORD has it). */
  const freshDatabase = (): string => {
    const name = `t${++database}`;
    pg.psql(`CREATE DATABASE ${name}`);
    return pg.url.replace(/\/postgres$/, `/${name}`);
  };

  test("created on first write, with the same report as SQLite's for the same uses", async () => {
    const url = freshDatabase();
    const path = join(tempDir(), "usage.db");
    const t = Date.UTC(2026, 11, 1);
    const uses = [
      use("a", { at: t, client: "claude-code", caller: "alice", project: "p1", digest: "sha256:1" }),
      use("a", { at: t + 86_400_000, client: "cursor", caller: "bob", project: "p2", outcome: "declined" }),
      use("a", { at: t + 2 * 86_400_000, client: "cursor", caller: "bob", outcome: "refused" }),
      use("b", { at: t + 3 * 86_400_000, outcome: "error" }),
    ];
    for (const store of [url, path]) {
      const { recorder, warnings } = recorderOn(store, { env: pg.env });
      for (const u of uses) recorder.record(u);
      await recorder.close();
      expect(warnings).toEqual([]);
    }
    const query = { since: t - 1, until: t + 5 * 86_400_000, buckets: 5 };
    const [onPg, onFile] = await Promise.all([readUsage(url, query, pg.env), readUsage(path, query)]);
    expect(onPg.problem).toBeUndefined();
    expect(onPg.skills).toEqual(onFile.skills);
    expect(onPg.skills[0]).toMatchObject({ skill: "a", uses: 2, refused: 1, buckets: [1, 1, 0, 0, 0] });
    const name = new URL(url).pathname.slice(1);
    expect(pg.psql("SELECT version FROM store_schema", name).trim()).toBe(String(USAGE_SCHEMA_VERSION));
    expect(pg.psql("SELECT digest FROM uses WHERE caller = 'alice'", name).trim()).toBe("sha256:1");
  });

  test("a version-1 table (today's columns) is migrated forward; a newer store is refused", async () => {
    const url = freshDatabase();
    const exec = (sql: string) => pg.psql(sql, new URL(url).pathname.slice(1));
    exec(
      "CREATE TABLE uses (at BIGINT NOT NULL, skill TEXT NOT NULL, layer TEXT NOT NULL, client TEXT, caller TEXT, outcome TEXT NOT NULL, via TEXT NOT NULL)",
    );
    exec(
      `INSERT INTO uses VALUES (${Date.UTC(2026, 10, 20)}, 'review-pr', 'team', 'claude-code', NULL, 'ok', 'prompts/get')`,
    );
    const read = await readUsage(url, FIXTURE_WINDOW, pg.env);
    expect(read.problem).toBeUndefined();
    expect(read.skills.map((s) => [s.skill, s.uses, s.projects])).toEqual([["review-pr", 1, { [NO_PROJECT]: 1 }]]);
    expect(exec("SELECT version FROM store_schema").trim()).toBe(String(USAGE_SCHEMA_VERSION));
    exec("UPDATE store_schema SET version = 7");
    const newer = await readUsage(url, FIXTURE_WINDOW, pg.env);
    expect(newer.problem).toContain("has schema version 7, newer than this skill-central knows");
    const { recorder, warnings } = recorderOn(url, { env: pg.env });
    recorder.record(use("review-pr"));
    await until(() => warnings.length > 0, "the refusal's warning");
    await recorder.close();
    expect(warnings).toEqual([expect.stringContaining("has schema version 7")]);
    expect(exec("SELECT COUNT(*) FROM uses").trim()).toBe("1");
  });

  test("the board's views read the team store: the unused list (a skill only refused is unused), a skill's days and clients", async () => {
    const url = freshDatabase();
    const fixture = makeFixture({
      ".skills/used.yaml": "id: used\ndescription: Used by the team\ntype: prompt\nprompt: 'x'\n",
      ".skills/refused.yaml": "id: refused\ndescription: Only ever refused\ntype: prompt\nprompt: 'y'\n",
      ".skills/idle.yaml": "id: idle\ndescription: Nobody used it\ntype: prompt\nprompt: 'z'\n",
    });
    try {
      const now = Date.now();
      const { recorder } = recorderOn(url, { env: pg.env });
      recorder.record(use("used", { at: now - 2 * 86_400_000, client: "claude-code" }));
      recorder.record(use("used", { at: now - 1000, client: "cursor-vscode" }));
      recorder.record(use("refused", { at: now - 1000, outcome: "refused" }));
      await recorder.close();
      const loaded = await loadSkills({ cwd: fixture.cwd, home: fixture.home, builtin: false });
      const settings = { ...defaultUsageSettings(fixture.home), store: url };
      const previous = process.env.PGPASSWORD;
      process.env.PGPASSWORD = PG_PASSWORD;
      try {
        const overview = await usageOverview(settings, loaded.registry, now);
        expect(overview).toMatchObject({ recording: true, unused: ["idle", "refused"], unusedCount: 2 });
        const view = await skillUsage(settings, "used", now);
        expect(view.problem).toBeUndefined();
        expect(view.total).toBe(2);
        expect(view.buckets.reduce((a, b) => a + b, 0)).toBe(2);
        expect(view.clients).toEqual([
          { name: "claude-code", uses: 1 },
          { name: "cursor-vscode", uses: 1 },
        ]);
      } finally {
        if (previous === undefined) delete process.env.PGPASSWORD;
        else process.env.PGPASSWORD = previous;
      }
    } finally {
      fixture.cleanup();
    }
  });

  test("a wrong password or an unreachable server: the message names the store, never the password", async () => {
    const wrong = { PGPASSWORD: "wrong-password-Xy9-secret" };
    const read = await readUsage(pg.url, { since: 0 }, wrong);
    expect(read.problem).toContain(`usage store ${pg.url} cannot be read`);
    expect(read.problem).toContain("password authentication failed");
    expect(read.problem).not.toContain(wrong.PGPASSWORD);
    expect(read.problem).not.toContain(PG_PASSWORD);
    const gone = `postgres://skill@127.0.0.1:1/postgres`;
    const unreachable = await readUsage(gone, { since: 0 }, pg.env);
    expect(unreachable.problem).toContain("usage store postgres://skill@127.0.0.1:1/postgres cannot be read");
    expect(unreachable.problem).not.toContain(PG_PASSWORD);
    const { recorder, warnings } = recorderOn(pg.url, { env: wrong });
    recorder.record(use("a"));
    await until(() => warnings.length > 0, "the warning");
    await recorder.close();
    expect(warnings.join("\n")).not.toContain(wrong.PGPASSWORD);
    expect(warnings[0]).toContain("password authentication failed");
  });

  test("a slow store (its table locked by another session): uses wait, nothing waits on them, and they arrive once it answers", async () => {
    const url = freshDatabase();
    const name = new URL(url).pathname.slice(1);
    // The store exists (the first write made it); then another session takes the table's lock.
    const { recorder, warnings } = recorderOn(url, { env: pg.env });
    recorder.record(use("first"));
    await until(() => recorder.waiting === 0, "the first use written");
    const locker = new SQL({ url, password: PG_PASSWORD, max: 1 });
    const session = await locker.reserve();
    try {
      await session`BEGIN`;
      await session.unsafe("LOCK TABLE uses IN ACCESS EXCLUSIVE MODE");
      // Recording is a synchronous append: these return while the store is locked.
      for (let i = 0; i < 10; i++) recorder.record(use("slow"));
      // The recorder's INSERT is now waiting on the lock in PostgreSQL (its own event, seen there).
      await until(
        () =>
          Number(
            pg
              .psql(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO uses%'",
                name,
              )
              .trim(),
          ) > 0,
        "the write waiting on the lock",
      );
      expect(recorder.waiting).toBe(10);
      await session`COMMIT`;
    } finally {
      session.release();
      await locker.close();
    }
    await until(() => recorder.waiting === 0, "the waiting uses written once the lock is gone");
    await recorder.close();
    expect(warnings).toEqual([]);
    expect(pg.psql("SELECT skill, COUNT(*) FROM uses GROUP BY skill ORDER BY skill", name).trim()).toBe(
      "first|1\nslow|10",
    );
  }, 60_000);

  test("PostgreSQL stopped mid-run: uses wait in the buffer, past its bound are dropped with one warning, and arrive when it is back", async () => {
    const url = freshDatabase();
    const { recorder, warnings } = recorderOn(url, { env: pg.env, buffer: 30 });
    recorder.record(use("before"));
    await until(() => recorder.waiting === 0, "the first use written");
    pg.stop("immediate");
    try {
      for (let i = 0; i < 50; i++) recorder.record(use("during"));
      // The batch timer finds the store down: one warning that uses wait.
      await until(() => warnings.some((w) => w.includes("cannot be written")), "the outage's warning");
      expect(recorder.waiting).toBe(30);
      expect(recorder.dropped).toBe(20);
    } finally {
      pg.start();
    }
    await until(() => recorder.waiting === 0, "the waiting uses written once PostgreSQL is back");
    recorder.record(use("after"));
    await recorder.close();
    const { skills } = await readUsage(url, { since: 0 }, pg.env);
    const counts = Object.fromEntries(skills.map((s) => [s.skill, s.uses]));
    expect(counts).toEqual({ before: 1, during: 30, after: 1 });
    expect(warnings.filter((w) => w.includes("dropped"))).toHaveLength(1);
    expect(warnings.filter((w) => w.includes("cannot be written"))).toHaveLength(1);
    expect(warnings.join("\n")).not.toContain(PG_PASSWORD);
  }, 60_000);
});
