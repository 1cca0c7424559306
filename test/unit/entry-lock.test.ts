import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { acquireLock } from "../../src/sources/entry-lock.ts";

let dir: string;
let lock: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "entry-lock-"));
  lock = join(dir, "lock");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the cache entry lock", () => {
  test("one holder at a time; released, it can be taken again", async () => {
    const first = await acquireLock(lock);
    expect(first).toBeDefined();
    expect(readFileSync(lock, "utf8")).toStartWith(`${process.pid} ${hostname()} `);
    expect(await acquireLock(lock, { timeoutMs: 0 })).toBeUndefined();
    await first!.release();
    expect(existsSync(lock)).toBe(false);
    const second = await acquireLock(lock, { timeoutMs: 0 });
    expect(second).toBeDefined();
    await second!.release();
  });

  test("a waiter gets the lock as soon as the holder releases it", async () => {
    const first = (await acquireLock(lock))!;
    const waitingFor = Promise.withResolvers<string>();
    const second = acquireLock(lock, { timeoutMs: 10_000, onWait: (pid) => waitingFor.resolve(pid) });
    expect(await waitingFor.promise).toBe(String(process.pid));
    await first.release();
    const held = await second;
    expect(held).toBeDefined();
    await held!.release();
  });

  test("the lock of a process that no longer runs (killed mid-write) is taken over", async () => {
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    writeFileSync(lock, `${gone.pid} ${hostname()} someone-elses-token\n`);
    const held = await acquireLock(lock, { timeoutMs: 0 });
    expect(held).toBeDefined();
    await held!.release();
  });

  test("the lock of a running process is respected until the timeout", async () => {
    const running = Bun.spawn(["sleep", "30"]);
    try {
      writeFileSync(lock, `${running.pid} ${hostname()} its-token\n`);
      const waited: string[] = [];
      expect(await acquireLock(lock, { timeoutMs: 150, onWait: (pid) => waited.push(pid) })).toBeUndefined();
      expect(waited).toEqual([String(running.pid)]);
      expect(readFileSync(lock, "utf8")).toContain("its-token");
    } finally {
      running.kill();
    }
  });

  test("releasing never removes a lock someone else took over meanwhile", async () => {
    const held = (await acquireLock(lock))!;
    writeFileSync(lock, `${process.pid} ${hostname()} another-token\n`);
    await held.release();
    expect(readFileSync(lock, "utf8")).toContain("another-token");
  });
});
