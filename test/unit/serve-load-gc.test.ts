import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { LiveRegistry } from "../../src/mcp/registry-source.ts";
import { createLogger } from "../../src/serve/log.ts";
import { openSkills } from "../../src/serve/skills.ts";

/**
 * The serving process's GC policy (src/serve/skills.ts): after a load that parsed files, the
 * young collection runs at once, before the answers (their texts go before the heap grows); after
 * one that parsed nothing (a warm start, from the start-up index) it runs once the requests that
 * waited for the load are answered, never between them (it held up a warm start's first answer).
 * An order, not a time: the collector is replaced by a recorder.
 */

let fixture: Fixture;
const saved = { cache: process.env.SKILL_CENTRAL_CACHE, dir: process.env.SKILL_CENTRAL_CACHE_DIR };
beforeAll(() => {
  fixture = makeFixture({ ".skills/a.yaml": promptSkill("a") });
  // Outside the index's racy window, so the first start indexes it and the second parses nothing.
  const aged = new Date(Date.now() - 60_000);
  utimesSync(join(fixture.cwd, ".skills", "a.yaml"), aged, aged);
  process.env.SKILL_CENTRAL_CACHE = "on";
  process.env.SKILL_CENTRAL_CACHE_DIR = join(fixture.root, "cache");
});
afterAll(() => {
  for (const [key, value] of [
    ["SKILL_CENTRAL_CACHE", saved.cache],
    ["SKILL_CENTRAL_CACHE_DIR", saved.dir],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  fixture.cleanup();
});

/** One start: a request that came before the first load, the load, then what happened in which order. */
async function start(): Promise<string[]> {
  const order: string[] = [];
  const gc = spyOn(Bun, "gc").mockImplementation(() => {
    order.push("collection");
    return 0;
  });
  try {
    const source = new LiveRegistry();
    const answered = source.current().then((registry) => {
      order.push(`answered with ${registry.ofType("prompt").length} prompt(s)`);
    });
    const skills = openSkills(
      { cwd: fixture.cwd, home: fixture.home, builtin: false, watch: false },
      source,
      createLogger({}, () => {}),
      [],
    );
    // The index's collection (before any load) is not this test's concern.
    order.length = 0;
    await skills.live.start();
    await answered;
    await new Promise<void>((resolve) => setImmediate(resolve));
    skills.live.close();
    // Writes the index: the next start parses nothing.
    skills.close();
    return order;
  } finally {
    gc.mockRestore();
  }
}

test("after a load that parsed files, the collection runs before the answers", async () => {
  expect(await start()).toEqual(["collection", "answered with 1 prompt(s)"]);
});

test("after a warm start (nothing parsed), it runs once the requests that waited for the load are answered", async () => {
  expect(await start()).toEqual(["answered with 1 prompt(s)", "collection"]);
});
