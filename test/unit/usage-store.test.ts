import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigProblem } from "../../src/config/config-problem.ts";
import { defaultUsageSettings, readUsageSettings, stateRoot } from "../../src/config/usage-settings.ts";
import { openUsageDatabase, readUsage, UsageRecorder } from "../../src/storage/usage-store.ts";
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
  const recorder = new UsageRecorder({ path, keepDays: 180, warn: (m) => warnings.push(m) });
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
  test("creates nothing until a use is recorded, then writes every row by close", () => {
    const path = tempStore();
    const warnings: string[] = [];
    const recorder = new UsageRecorder({ path, keepDays: 180, warn: (m) => warnings.push(m) });
    expect(existsSync(path)).toBe(false);
    recorder.record(use("a", { client: "claude-code" }));
    recorder.record(use("a", { client: "cursor-vscode", outcome: "error" }));
    recorder.record(use("b", { outcome: "declined" }));
    recorder.close();
    expect(warnings).toEqual([]);
    const usage = readUsage(path, { since: 0 }).skills;
    expect(usage.map((u) => [u.skill, u.uses])).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
    expect(usage[0]!.clients).toEqual({ "claude-code": 1, "cursor-vscode": 1 });
    expect(usage[0]!.outcomes).toEqual({ ok: 1, error: 1 });
    expect(usage[1]!.outcomes).toEqual({ declined: 1 });
    expect(usage[1]!.clients).toEqual({ unknown: 1 });
  });

  test("a store locked by another process keeps the rows, and close writes them once the lock lifts", () => {
    const { path, other, warnings, recorder } = lockedStore();
    recorder.record(use("a"));
    recorder.writePending(); // the batch finds the store locked and keeps the row (busy timeout 0: no wait)
    expect(recorder.recording).toBe(true);
    other.run("COMMIT");
    other.close();
    recorder.close();
    expect(warnings).toEqual([]);
    expect(readUsage(path, { since: 0 }).skills[0]?.uses).toBe(1);
  });

  test("a store locked for too long stops recording with one warning", () => {
    const path = tempStore();
    const other = openUsageDatabase(path, 0);
    other.run("BEGIN IMMEDIATE");
    let now = 1_000_000;
    const warnings: string[] = [];
    const recorder = new UsageRecorder({ path, keepDays: 180, warn: (m) => warnings.push(m), now: () => now });
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
    expect(readUsage(path, { since: 0 }).skills).toEqual([]);
  });

  test("uses a locked store still holds at close are named in one warning", () => {
    const { other, warnings, recorder } = lockedStore();
    recorder.record(use("a"));
    recorder.record(use("b"));
    recorder.close(); // waits its bounded time for the lock, then gives up
    other.run("COMMIT");
    other.close();
    expect(warnings).toEqual([expect.stringContaining("usage: 2 use(s) not recorded")]);
  });

  test("a store that cannot be created means one warning and no recording", () => {
    const path = tempStore();
    const blocked = join(path, "..", "..", "file");
    Bun.write(blocked, "x");
    const warnings: string[] = [];
    const recorder = new UsageRecorder({ path: join(blocked, "usage.db"), keepDays: 1, warn: (m) => warnings.push(m) });
    recorder.record(use("a"));
    recorder.close();
    recorder.record(use("b"));
    recorder.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("usage: not recording");
  });

  test("rows older than keepDays are pruned when a process first opens the store", () => {
    const path = tempStore();
    const now = Date.UTC(2026, 11, 1);
    const first = new UsageRecorder({ path, keepDays: 180, warn: () => {}, now: () => now });
    first.record(use("old", { at: now - 200 * DAY }));
    first.record(use("recent", { at: now - 10 * DAY }));
    first.close();
    expect(readUsage(path, { since: 0, until: now }).skills.map((u) => u.skill)).toEqual(["old", "recent"]);
    const second = new UsageRecorder({ path, keepDays: 180, warn: () => {}, now: () => now });
    second.record(use("today", { at: now }));
    second.close();
    expect(readUsage(path, { since: 0, until: now }).skills.map((u) => u.skill)).toEqual(["recent", "today"]);
  });

  test("the store is WAL with a busy timeout, shared safely by several connections", () => {
    const path = tempStore();
    const db = openUsageDatabase(path, 1234);
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    expect(db.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()?.timeout).toBe(1234);
    db.close();
  });
});

describe("readUsage", () => {
  test("an absent store reads as empty and is not created", () => {
    const path = tempStore();
    expect(readUsage(path, { since: 0 }).skills).toEqual([]);
    expect(existsSync(path)).toBe(false);
  });

  test("buckets cut the window for a sparkline, oldest first; --skill narrows", () => {
    const path = tempStore();
    const until = Date.UTC(2026, 11, 4);
    const recorder = new UsageRecorder({ path, keepDays: 365, warn: () => {}, now: () => until });
    for (const daysAgo of [0, 0, 1, 6, 6, 6]) recorder.record(use("a", { at: until - daysAgo * DAY - 1000 }));
    recorder.record(use("b", { at: until - 2 * DAY }));
    recorder.record(use("a", { at: until - 40 * DAY }));
    recorder.close();
    const [a] = readUsage(path, { since: until - 7 * DAY, until, buckets: 7, skill: "a" }).skills;
    expect(a?.uses).toBe(6);
    expect(a?.buckets).toEqual([3, 0, 0, 0, 0, 1, 2]);
    expect(a?.lastUsed).toBe(until - 1000);
    expect(readUsage(path, { since: until - 7 * DAY, until, skill: "a" }).skills).toHaveLength(1);
  });

  test("a file that is not a usage store reads as empty", () => {
    const path = tempStore();
    openUsageDatabase(path, 0).close();
    const db = new Database(path);
    db.run("DROP TABLE uses");
    db.close();
    expect(readUsage(path, { since: 0 }).skills).toEqual([]);
  });
});

describe("usage settings", () => {
  const resolve = (p: string) => `/project/${p}`;
  const read = (value: unknown) => {
    const problems: ConfigProblem[] = [];
    const settings = readUsageSettings(value, resolve, (p) => problems.push(p));
    return { settings, problems: problems.map((p) => ({ message: p.message, path: p.path })) };
  };
  test("off, a store path and keepDays are read", () => {
    for (const off of ["off", false, { store: "off" }, { store: false }])
      expect(read(off)).toEqual({ settings: { store: "off" }, problems: [] });
    expect(read({ store: " ./u.db ", keepDays: 30 })).toEqual({
      settings: { store: "/project/./u.db", keepDays: 30 },
      problems: [],
    });
  });

  test("a wrong key is left out and named at its path; the rest of the block is kept", () => {
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
          message: 'unknown key "usage.stor" is ignored (known keys: store, keepDays)',
          path: ["stor"],
        },
      ],
    });
  });

  test("a value that is neither off nor a mapping ignores the block", () => {
    for (const bad of [42, "on", true, ["off"], null])
      expect(read(bad)).toEqual({
        settings: undefined,
        problems: [{ message: '"usage" must be off, or a mapping { store, keepDays }; ignored', path: [] }],
      });
  });

  test("the default store lives in the user's state folder on each platform", () => {
    expect(stateRoot("/home/u", {}, "linux")).toBe("/home/u/.local/state/skill-central");
    expect(stateRoot("/home/u", { XDG_STATE_HOME: "/xdg" }, "linux")).toBe("/xdg/skill-central");
    expect(stateRoot("/Users/u", {}, "darwin")).toBe("/Users/u/Library/Application Support/skill-central");
    expect(stateRoot("C:\\Users\\u", { LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32")).toEndWith(
      "skill-central",
    );
    expect(defaultUsageSettings("/home/u", {}, "linux")).toEqual({
      store: "/home/u/.local/state/skill-central/usage.db",
      keepDays: 180,
    });
  });
});

describe("usage command helpers", () => {
  test("windows are read as hours, days or weeks", () => {
    expect(parseWindow("30d", "--since")).toBe(30 * DAY);
    expect(parseWindow("12h", "--since")).toBe(12 * 3_600_000);
    expect(parseWindow("2w", "--since")).toBe(14 * DAY);
    expect(() => parseWindow("30", "--since")).toThrow(UsageError);
    expect(() => parseWindow("0d", "--since")).toThrow("--since must be a window like 30d, 12h or 2w");
  });

  test("a sparkline scales to the busiest bucket and leaves empty ones blank", () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe(" ▁▂▄█");
    expect(sparkline([0, 0])).toBe("▁▁");
  });
});
