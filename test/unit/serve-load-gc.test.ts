import { afterEach, expect, spyOn, test } from "bun:test";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { LiveRegistry } from "../../src/mcp/registry-source.ts";
import { createLogger } from "../../src/serve/log.ts";
import { openSkills } from "../../src/serve/skills.ts";

/**
 * The serving process's GC policy (src/serve/skills.ts): the young collection after a load runs
 * once the requests that waited for that load are answered, never between the load and them (it
 * held up a start's first answer). An order, not a time: the collector is replaced by a recorder.
 */

let fixture: Fixture | undefined;
afterEach(() => fixture?.cleanup());

test("the collection after the first load runs after the requests that waited for it are answered", async () => {
  fixture = makeFixture({ ".skills/a.yaml": promptSkill("a") });
  const order: string[] = [];
  const gc = spyOn(Bun, "gc").mockImplementation(() => {
    order.push("collection");
    return 0;
  });
  try {
    const source = new LiveRegistry();
    // A request that came before the first load: it waits for the registry, then answers.
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
    expect(order).toEqual(["answered with 1 prompt(s)", "collection"]);
    skills.live.close();
    skills.close();
  } finally {
    gc.mockRestore();
  }
});
