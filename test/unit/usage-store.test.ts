import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ConfigProblem } from "../../src/config/config-problem.ts";
import type { ConfigOrigin } from "../../src/config/config-origin.ts";
import { defaultUsageSettings, readUsageSettings, stateRoot } from "../../src/config/usage-settings.ts";
import { formatDiagnostic } from "../../src/diagnostics.ts";
import { writeGarbageStore, writeTruncatedStore } from "../helpers/damaged-store.ts";
import { makeFixture } from "../helpers/fixture.ts";
import { resolvedConfig } from "../helpers/resolved-config.ts";
import { MAX_RECORDED_CHARS, recordedText } from "../../src/storage/usage-bounds.ts";
import { readUsage, UsageRecorder } from "../../src/storage/usage-store.ts";
import { openUsageDatabase } from "../../src/storage/usage-sqlite.ts";
import { parseWindow, sparkline } from "../../src/commands/usage.ts";
import { UsageError } from "../../src/commands/support/options.ts";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const tempStore = () => {
  dir = mkdtempSync(join(tmpdir(), "usage-store-"));
  return join(dir, "state", "usage.db");
};

const DAY = 86_400_000;

/** A store another connection holds the write lock of, and a recorder on it. */
function lockedStore() {
  const path = tempStore();
  const other = openUsageDatabase(path, 0);
  other.run("BEGIN IMMEDIATE");
  const warnings: string[] = [];
  const recorder = new UsageRecorder({ store: path, keepDays: 180, warn: (m) => warnings.push(m) });
  return { path, other, warnings, recorder };
}
const use = (
  skill: string,
  extra: Partial<{ client: string; outcome: "ok" | "error" | "declined"; at: number }> = {},
) => ({
  skill,
  layer: "team",
  via: "prompts/get",
  outcome: extra.outcome ?? ("ok" as const),
  ...(extra.client !== undefined && { client: extra.client }),
  ...(extra.at !== undefined && { at: extra.at }),
});

describe("UsageRecorder", () => {
  test("creates nothing until a use is recorded, then writes every row by close", async () => {
    const path = tempStore();
    const warnings: string[] = [];
    const recorder = new UsageRecorder({ store: path, keepDays: 180, warn: (m) => warnings.push(m) });
    expect(existsSync(path)).toBe(false);
    recorder.record(use("a", { client: "claude-code" }));
    recorder.record(use("a", { client: "cursor-vscode", outcome: "error" }));
    recorder.record(use("b", { outcome: "declined" }));
    recorder.close();
    expect(warnings).toEqual([]);
    const usage = (await readUsage(path, { since: 0 })).skills;
    expect(usage.map((u) => [u.skill, u.uses])).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
    expect(usage[0]!.clients).toEqual({ "claude-code": 1, "cursor-vscode": 1 });
    expect(usage[0]!.outcomes).toEqual({ ok: 1, error: 1 });
    expect(usage[1]!.outcomes).toEqual({ declined: 1 });
    expect(usage[1]!.clients).toEqual({ unknown: 1 });
  });

  test("a store locked by another process keeps the rows, and close writes them once the lock lifts", async () => {
    const { path, other, warnings, recorder } = lockedStore();
    recorder.record(use("a"));
    recorder.writePending(); // the batch finds the store locked and keeps the row (busy timeout 0: no wait)
    expect(recorder.recording).toBe(true);
    other.run("COMMIT");
    other.close();
    recorder.close();
    expect(warnings).toEqual([]);
    expect((await readUsage(path, { since: 0 })).skills[0]?.uses).toBe(1);
  });

  test("a store locked for too long stops recording with one warning", async () => {
    const path = tempStore();
    const other = openUsageDatabase(path, 0);
    other.run("BEGIN IMMEDIATE");
    let now = 1_000_000;
    const warnings: string[] = [];
    const recorder = new UsageRecorder({ store: path, keepDays: 180, warn: (m) => warnings.push(m), now: () => now });
    recorder.record(use("a"));
    recorder.writePending(); // locked: kept for the next batch
    now += 5_000;
    recorder.writePending(); // still locked, not for long enough
    expect(warnings).toEqual([]);
    expect(recorder.recording).toBe(true);
    now += 5_000;
    recorder.writePending();
    expect(recorder.recording).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("stayed locked by another process");
    other.run("COMMIT");
    other.close();
    recorder.record(use("b"));
    recorder.close();
    expect(warnings).toHaveLength(1);
    expect((await readUsage(path, { since: 0 })).skills).toEqual([]);
  });

  test("close keeps trying past one try's wait: a lock another process holds for a while does not lose the uses", async () => {
    const path = tempStore();
    openUsageDatabase(path, 0).close();
    // Another process takes the write lock, says so, holds it across several of close's tries, then lets go.
    const holder = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { Database } = require("bun:sqlite");
         const db = new Database(${JSON.stringify(path)});
         db.run("BEGIN IMMEDIATE");
         process.stdout.write("locked\\n");
         Bun.sleepSync(500);
         db.run("COMMIT");
         db.close();`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = holder.stdout.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("locked\n");
    const warnings: string[] = [];
    const recorder = new UsageRecorder({ store: path, keepDays: 180, warn: (m) => warnings.push(m) });
    recorder.record(use("a"));
    recorder.record(use("b"));
    recorder.close();
    expect(await holder.exited).toBe(0);
    expect(warnings).toEqual([]);
    expect((await readUsage(path, { since: 0 })).skills.map((s) => [s.skill, s.uses]).sort()).toEqual([
      ["a", 1],
      ["b", 1],
    ]);
  }, 30_000);

  test("uses a locked store still holds at close are named in one warning", async () => {
    const { other, warnings, recorder } = lockedStore();
    recorder.record(use("a"));
    recorder.record(use("b"));
    recorder.close(); // waits its bounded time for the lock, then gives up
    other.run("COMMIT");
    other.close();
    expect(warnings).toEqual([expect.stringContaining("usage: 2 use(s) not recorded")]);
  });

  test("a store that cannot be created means one warning and no recording", async () => {
    const path = tempStore();
    const blocked = join(path, "..", "..", "file");
    Bun.write(blocked, "x");
    const warnings: string[] = [];
    const recorder = new UsageRecorder({
      store: join(blocked, "usage.db"),
      keepDays: 1,
      warn: (m) => warnings.push(m),
    });
    recorder.record(use("a"));
    recorder.close();
    recorder.record(use("b"));
    recorder.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("usage: not recording");
  });

  test("rows older than keepDays are pruned when a process first opens the store", async () => {
    const path = tempStore();
    const now = Date.UTC(2026, 11, 1);
    const first = new UsageRecorder({ store: path, keepDays: 180, warn: () => {}, now: () => now });
    first.record(use("old", { at: now - 200 * DAY }));
    first.record(use("recent", { at: now - 10 * DAY }));
    first.close();
    expect((await readUsage(path, { since: 0, until: now })).skills.map((u) => u.skill)).toEqual(["old", "recent"]);
    const second = new UsageRecorder({ store: path, keepDays: 180, warn: () => {}, now: () => now });
    second.record(use("today", { at: now }));
    second.close();
    expect((await readUsage(path, { since: 0, until: now })).skills.map((u) => u.skill)).toEqual(["recent", "today"]);
  });

  test("the store is WAL with a busy timeout, shared safely by several connections", async () => {
    const path = tempStore();
    const db = openUsageDatabase(path, 1234);
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    expect(db.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()?.timeout).toBe(1234);
    db.close();
  });
});

describe("readUsage", () => {
  test("an absent store reads as empty and is not created", async () => {
    const path = tempStore();
    expect((await readUsage(path, { since: 0 })).skills).toEqual([]);
    expect(existsSync(path)).toBe(false);
  });

  test("buckets cut the window for a sparkline, oldest first; --skill narrows", async () => {
    const path = tempStore();
    const until = Date.UTC(2026, 11, 4);
    const recorder = new UsageRecorder({ store: path, keepDays: 365, warn: () => {}, now: () => until });
    for (const daysAgo of [0, 0, 1, 6, 6, 6]) recorder.record(use("a", { at: until - daysAgo * DAY - 1000 }));
    recorder.record(use("b", { at: until - 2 * DAY }));
    recorder.record(use("a", { at: until - 40 * DAY }));
    recorder.close();
    const [a] = (await readUsage(path, { since: until - 7 * DAY, until, buckets: 7, skill: "a" })).skills;
    expect(a?.uses).toBe(6);
    expect(a?.buckets).toEqual([3, 0, 0, 0, 0, 1, 2]);
    expect(a?.lastUsed).toBe(until - 1000);
    expect((await readUsage(path, { since: until - 7 * DAY, until, skill: "a" })).skills).toHaveLength(1);
  });

  test("exactBuckets: buckets that are a viewer's local days count each use by its own time, not its UTC day's", async () => {
    const path = tempStore();
    // Tokyo's days start at 15:00 UTC; a use at 23:39 UTC on the 5th is on Tokyo's 6th.
    const tokyoMidnight6th = Date.UTC(2026, 11, 5, 15);
    const since = tokyoMidnight6th - 3 * DAY;
    const recorder = new UsageRecorder({ store: path, keepDays: 365, warn: () => {}, now: () => since + 5 * DAY });
    recorder.record(use("a", { at: Date.UTC(2026, 11, 5, 23, 39) }));
    recorder.close();
    const query = { since, until: since + 4 * DAY, buckets: 4, skill: "a" };
    const exact = (await readUsage(path, { ...query, exactBuckets: true })).skills[0];
    expect(exact?.buckets).toEqual([0, 0, 0, 1]);
    // The daily roll-ups know only the UTC day: its middle (12:00 UTC on the 5th) is Tokyo's 5th.
    expect((await readUsage(path, query)).skills[0]?.buckets).toEqual([0, 0, 1, 0]);
  });

  test("a file that is not a usage store reads as empty", async () => {
    const path = tempStore();
    openUsageDatabase(path, 0).close();
    const db = new Database(path);
    db.run("DROP TABLE uses");
    db.close();
    expect((await readUsage(path, { since: 0 })).skills).toEqual([]);
  });
});

describe("what a row may hold", () => {
  test("a string within the bound is kept as it is; a longer one is cut to the bound and ends with …", async () => {
    expect(recordedText("claude-code")).toBe("claude-code");
    const exact = "x".repeat(MAX_RECORDED_CHARS);
    expect(recordedText(exact)).toBe(exact);
    const cut = recordedText("y".repeat(3_000_000));
    expect(cut).toBe(`${"y".repeat(MAX_RECORDED_CHARS - 1)}…`);
  });

  test("a cut never splits a surrogate pair, and a lone surrogate becomes U+FFFD", async () => {
    // The pair 😀 straddles the cut: it is left out whole.
    const straddling = `${"a".repeat(MAX_RECORDED_CHARS - 2)}😀tail`;
    const cut = recordedText(straddling);
    expect(cut).toBe(`${"a".repeat(MAX_RECORDED_CHARS - 2)}…`);
    expect(cut.isWellFormed()).toBe(true);
    // Pairs before the cut are kept whole.
    const emoji = recordedText("😀".repeat(MAX_RECORDED_CHARS));
    expect(emoji.isWellFormed()).toBe(true);
    expect(emoji.length).toBeLessThanOrEqual(MAX_RECORDED_CHARS);
    expect(emoji).toBe(`${"😀".repeat((MAX_RECORDED_CHARS - 2) / 2)}…`);
    expect(recordedText("a\ud800b")).toBe("a\ufffdb");
  });

  test("every string of a use is bounded when it is recorded, before the row is queued", async () => {
    const path = tempStore();
    const warnings: string[] = [];
    const recorder = new UsageRecorder({ store: path, keepDays: 180, warn: (m) => warnings.push(m) });
    const huge = (c: string) => c.repeat(3 * 1024 * 1024);
    for (let i = 0; i < 20; i++)
      recorder.record({
        skill: "a",
        layer: huge("l"),
        via: huge("v"),
        outcome: "ok",
        client: huge("c"),
        caller: huge("u"),
      });
    recorder.close();
    expect(warnings).toEqual([]);
    const db = new Database(path, { readonly: true });
    try {
      const rows = db.query<Record<string, string>, []>("SELECT skill, layer, via, client, caller FROM uses").all();
      expect(rows).toHaveLength(20);
      for (const row of rows)
        expect(row).toEqual({
          skill: "a",
          layer: `${"l".repeat(MAX_RECORDED_CHARS - 1)}…`,
          via: `${"v".repeat(MAX_RECORDED_CHARS - 1)}…`,
          client: `${"c".repeat(MAX_RECORDED_CHARS - 1)}…`,
          caller: `${"u".repeat(MAX_RECORDED_CHARS - 1)}…`,
        });
    } finally {
      db.close();
    }
    // 20 rows of 5 bounded strings: kilobytes, not the 300 MB the strings add up to.
    expect(statSync(path).size).toBeLessThan(256 * 1024);
  });
});

describe("the store is the user's alone", () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  test("a new store is 0600 in folders made 0700, and so are the -wal and -shm files SQLite adds", async () => {
    const path = tempStore();
    const recorder = new UsageRecorder({ store: path, keepDays: 180, warn: () => {} });
    recorder.record(use("a"));
    recorder.writePending();
    // The batch is written and the connection open: SQLite's -wal and -shm files exist now.
    const side = [`${path}-wal`, `${path}-shm`];
    for (const file of side) expect(existsSync(file)).toBe(true);
    expect([path, ...side].map(mode)).toEqual([0o600, 0o600, 0o600]);
    expect(mode(dirname(path))).toBe(0o700);
    recorder.close();
  });

  test("a store an older version made 0644 is narrowed to 0600 when it is next opened; a folder the user chose keeps its mode", async () => {
    const path = tempStore();
    openUsageDatabase(path, 0).close();
    chmodSync(path, 0o644);
    chmodSync(dirname(path), 0o755);
    const recorder = new UsageRecorder({ store: path, keepDays: 180, warn: () => {} });
    recorder.record(use("a"));
    recorder.close();
    expect(mode(path)).toBe(0o600);
    expect(mode(dirname(path))).toBe(0o755);
    expect((await readUsage(path, { since: 0 })).skills.map((u) => u.uses)).toEqual([1]);
  });

  test("skill-central's own state folder is narrowed to 0700 too", async () => {
    const path = tempStore();
    openUsageDatabase(path, 0).close();
    chmodSync(dirname(path), 0o755);
    const recorder = new UsageRecorder({ store: path, keepDays: 180, warn: () => {}, privateFolder: true });
    recorder.record(use("a"));
    recorder.close();
    expect(mode(dirname(path))).toBe(0o700);
  });

  test("a store path that names a folder keeps the folder's mode and means one warning", async () => {
    const path = tempStore();
    mkdirSync(path, { recursive: true, mode: 0o755 });
    chmodSync(path, 0o755);
    const warnings: string[] = [];
    const recorder = new UsageRecorder({ store: path, keepDays: 180, warn: (m) => warnings.push(m) });
    recorder.record(use("a"));
    recorder.close();
    expect(mode(path)).toBe(0o755);
    expect(warnings).toHaveLength(1);
  });
});

describe("a store that cannot be read", () => {
  const garbage = () => {
    const path = tempStore();
    writeGarbageStore(path);
    return path;
  };
  const truncated = () => {
    const path = tempStore();
    writeTruncatedStore(path);
    return path;
  };

  test("garbage bytes read as empty, with one line naming the file and why; the file is left as it was", async () => {
    const path = garbage();
    const before = readFileSync(path);
    expect(await readUsage(path, { since: 0 })).toEqual({
      skills: [],
      problem: `usage store ${path} cannot be read (file is not a database): showing no history`,
    });
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  test("a damaged (truncated) store reads as empty with the reason; the file is left as it was", async () => {
    const path = truncated();
    const before = readFileSync(path);
    expect(await readUsage(path, { since: 0 })).toEqual({
      skills: [],
      problem: `usage store ${path} cannot be read (database disk image is malformed): showing no history`,
    });
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  test("a folder where the store should be reads as empty with the reason; an absent store has none", async () => {
    const path = tempStore();
    mkdirSync(path, { recursive: true });
    expect((await readUsage(path, { since: 0 })).problem).toBe(
      `usage store ${path} cannot be read (it is a folder (EISDIR)): showing no history`,
    );
    expect(await readUsage(join(path, "absent.db"), { since: 0 })).toEqual({ skills: [] });
  });

  /** Recording into `path`: five batches, then close. */
  const recordInto = (path: string) => {
    const before = readFileSync(path);
    const warnings: string[] = [];
    const recorder = new UsageRecorder({ store: path, keepDays: 1, warn: (m) => warnings.push(m) });
    for (let i = 0; i < 5; i++) {
      recorder.record(use("a"));
      recorder.writePending();
    }
    recorder.close();
    return { warnings, unchanged: readFileSync(path).equals(before) };
  };

  test("recording into garbage bytes stops with one warning naming the file, and never changes it", async () => {
    const path = garbage();
    const { warnings, unchanged } = recordInto(path);
    expect(warnings).toEqual([`usage: not recording, the store ${path} cannot be opened: file is not a database`]);
    expect(unchanged).toBe(true);
  });

  test("recording into a damaged store stops with one warning naming the file, and never changes it", async () => {
    const path = truncated();
    const { warnings, unchanged } = recordInto(path);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(path);
    expect(warnings[0]).toContain("database disk image is malformed");
    expect(unchanged).toBe(true);
  });
});

describe("usage settings", () => {
  const resolve = (p: string) => `/project/${p}`;
  const read = (value: unknown, origin: ConfigOrigin = "user") => {
    const problems: ConfigProblem[] = [];
    const settings = readUsageSettings(value, resolve, (p) => problems.push(p), origin);
    return { settings, problems: problems.map((p) => ({ message: p.message, path: p.path })) };
  };
  test("off, a store path and keepDays are read", async () => {
    for (const off of ["off", false, { store: "off" }, { store: false }])
      expect(read(off)).toEqual({ settings: { store: "off" }, problems: [] });
    expect(read({ store: " ./u.db ", keepDays: 30 })).toEqual({
      settings: { store: "/project/./u.db", keepDays: 30 },
      problems: [],
    });
  });

  test("a wrong key is left out and named at its path; the rest of the block is kept", async () => {
    expect(read({ store: "./u.db", keepDays: 0 })).toEqual({
      settings: { store: "/project/./u.db" },
      problems: [
        { message: '"usage.keepDays" must be a whole number of days from 1 to 36500; ignored', path: ["keepDays"] },
      ],
    });
    expect(read({ keepDays: 2.5, store: "  " }).problems.map((p) => p.path)).toEqual([["keepDays"], ["store"]]);
    expect(read({ stor: "x" })).toEqual({
      settings: {},
      problems: [
        {
          message: 'unknown key "usage.stor" is ignored (known keys: store, keepDays, buffer)',
          path: ["stor"],
        },
      ],
    });
  });

  test("a project's config may not move, turn off or prune the store: each key is left out with a warning at it", async () => {
    const refused = (key: string, path: string[]) => ({
      message: `usage.${key} is a user setting; ignored in a project's config`,
      path,
    });
    expect(read({ store: "./u.db", keepDays: 1 }, "project")).toEqual({
      settings: {},
      problems: [refused("store", ["store"]), refused("keepDays", ["keepDays"])],
    });
    for (const off of ["off", false])
      expect(read(off, "project")).toEqual({ settings: {}, problems: [refused("store", [])] });
    expect(read({ store: "off" }, "project")).toEqual({ settings: {}, problems: [refused("store", ["store"])] });
    // A wrong value is named once, for what is wrong with it.
    expect(read({ keepDays: 0 }, "project").problems.map((p) => p.message)).toEqual([
      '"usage.keepDays" must be a whole number of days from 1 to 36500; ignored',
    ]);
  });

  test("a project's usage keys never reach the resolved settings; the user's do; one warning names the file and key", async () => {
    const fixture = makeFixture({
      "~/.skill-central/config.yaml": "usage: { store: ~/mine.db, keepDays: 400 }\n",
      "skill-central.yaml": "usage:\n  store: /tmp/elsewhere.db\n  keepDays: 1\n",
    });
    try {
      const { config, diagnostics } = await resolvedConfig(fixture);
      expect(config.usage).toEqual({ store: join(fixture.home, "mine.db"), keepDays: 400, buffer: 50_000 });
      const lines = diagnostics.map((d) => formatDiagnostic(d, { display: (f) => f }));
      const project = join(fixture.cwd, "skill-central.yaml");
      expect(lines).toEqual([
        `${project}:2:3: warning: usage.store is a user setting; ignored in a project's config — set it in your own ~/.skill-central/config.yaml`,
        `${project}:3:3: warning: usage.keepDays is a user setting; ignored in a project's config — set it in your own ~/.skill-central/config.yaml`,
      ]);
      // With no user config, the default store and keepDays stand.
      rmSync(join(fixture.home, ".skill-central"), { recursive: true });
      expect((await resolvedConfig(fixture)).config.usage).toEqual(defaultUsageSettings(fixture.home));
    } finally {
      fixture.cleanup();
    }
  });

  test("a value that is neither off nor a mapping ignores the block", async () => {
    for (const bad of [42, "on", true, ["off"], null])
      expect(read(bad)).toEqual({
        settings: undefined,
        problems: [{ message: '"usage" must be off, or a mapping { store, keepDays }; ignored', path: [] }],
      });
  });

  test("the default store lives in the user's state folder on each platform", async () => {
    expect(stateRoot("/home/u", {}, "linux")).toBe("/home/u/.local/state/skill-central");
    expect(stateRoot("/home/u", { XDG_STATE_HOME: "/xdg" }, "linux")).toBe("/xdg/skill-central");
    expect(stateRoot("/Users/u", {}, "darwin")).toBe("/Users/u/Library/Application Support/skill-central");
    expect(stateRoot("C:\\Users\\u", { LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32")).toEndWith(
      "skill-central",
    );
    expect(defaultUsageSettings("/home/u", {}, "linux")).toEqual({
      store: "/home/u/.local/state/skill-central/usage.db",
      keepDays: 180,
      buffer: 50_000,
    });
  });
});

describe("usage command helpers", () => {
  test("windows are read as hours, days or weeks", async () => {
    expect(parseWindow("30d", "--since")).toBe(30 * DAY);
    expect(parseWindow("12h", "--since")).toBe(12 * 3_600_000);
    expect(parseWindow("2w", "--since")).toBe(14 * DAY);
    expect(() => parseWindow("30", "--since")).toThrow(UsageError);
    expect(() => parseWindow("0d", "--since")).toThrow("--since must be a window like 30d, 12h or 2w");
  });

  test("a sparkline scales to the busiest bucket and leaves empty ones blank", async () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe(" ▁▂▄█");
    expect(sparkline([0, 0])).toBe("▁▁");
  });
});
