import { describe, expect, test } from "bun:test";
import { Reloader } from "../../src/reload/reloader.ts";

/** A reload that records how often it ran and how many ran at once. */
function counting(work: () => Promise<void> = () => Promise.resolve()) {
  const stats = { runs: 0, active: 0, maxActive: 0 };
  const reload = async () => {
    stats.runs++;
    stats.active++;
    stats.maxActive = Math.max(stats.maxActive, stats.active);
    try {
      await work();
    } finally {
      stats.active--;
    }
  };
  return { stats, reload };
}

describe("Reloader", () => {
  test("a burst of schedule() calls is one reload", async () => {
    const { stats, reload } = counting();
    const reloader = new Reloader(reload, 5);
    for (let i = 0; i < 20; i++) reloader.schedule();
    await reloader.idle();
    expect(stats.runs).toBe(1);
  });

  test("a change during a reload runs one more reload after it, never two at once", async () => {
    const gate = Promise.withResolvers<void>();
    let first = true;
    const { stats, reload } = counting(async () => {
      if (first) {
        first = false;
        await gate.promise;
      }
    });
    const reloader = new Reloader(reload, 1);
    reloader.schedule();
    while (stats.runs === 0) await Bun.sleep(1);
    // The first reload is running: these changes must not start a second one in parallel.
    reloader.schedule();
    reloader.schedule();
    gate.resolve();
    await reloader.idle();
    expect(stats).toEqual({ runs: 2, active: 0, maxActive: 1 });
  });

  test("a reload that throws does not stop later ones", async () => {
    let calls = 0;
    const reloader = new Reloader(async () => {
      calls++;
      if (calls === 1) throw new Error("boom");
    }, 1);
    reloader.schedule();
    await reloader.idle();
    reloader.schedule();
    await reloader.idle();
    expect(calls).toBe(2);
  });

  test("after close(), nothing scheduled runs", async () => {
    const { stats, reload } = counting();
    const reloader = new Reloader(reload, 1);
    reloader.schedule();
    reloader.close();
    reloader.schedule();
    await reloader.idle();
    await Bun.sleep(10);
    expect(stats.runs).toBe(0);
  });
});
