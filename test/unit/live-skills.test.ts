import { afterEach, describe, expect, test } from "bun:test";
import type { LoadResult } from "../../src/load/load-skills.ts";
import { LiveSkills } from "../../src/reload/live-skills.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

const CONFIG = "builtin: false\nlayers:\n  - { name: skills, path: ./skills, priority: 10 }\n";
const skillMd = (name: string, body: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}\n`;

let fixture: Fixture | undefined;
let live: LiveSkills | undefined;
afterEach(() => {
  live?.close();
  live = undefined;
  fixture?.cleanup();
  fixture = undefined;
});

/**
 * A LiveSkills over a fixture whose "server" is busy until `quiet()` is called: the first load's
 * deferred watches (and the catch-up load after them) wait for a quiet moment, as they wait for a
 * client's opening burst of requests.
 */
function start(files: Record<string, string>) {
  fixture = makeFixture({ "skill-central.yaml": CONFIG, ...files });
  const loads: { result: LoadResult; previous: LoadResult | undefined }[] = [];
  let busy = true;
  let nextLoad: (() => void) | undefined;
  live = new LiveSkills({
    load: { cwd: fixture.cwd, home: fixture.home },
    watch: true,
    warn: () => {},
    lastActivity: () => (busy ? performance.now() : Number.NEGATIVE_INFINITY),
    loaded(result, previous) {
      loads.push({ result, previous });
      nextLoad?.();
    },
    failed(error) {
      throw error;
    },
  });
  return {
    loads,
    live,
    fixture,
    quiet: () => {
      busy = false;
    },
    loaded: () => new Promise<void>((resolve) => (nextLoad = resolve)),
  };
}

const bodyOf = (result: LoadResult, id: string) => result.registry.get(id)?.content.read().template;

describe("the first load's folder watches are armed once it is served, and a check of the layers finds what they missed", () => {
  test("a skill edited after the first load, before its folder was watched, is served by the reload the check asks for", async () => {
    const s = start({ "skills/a/SKILL.md": skillMd("a", "first") });
    await s.live.start();
    expect(s.loads).toHaveLength(1);
    expect(bodyOf(s.loads[0]!.result, "a")).toBe("first\n");
    // No recursive watch on the layer yet: nothing reloads, however long the server stays busy.
    s.fixture.write("skills/a/SKILL.md", skillMd("a", "second, a longer body"));
    s.fixture.write("skills/b/SKILL.md", skillMd("b", "new"));
    expect(s.loads).toHaveLength(1);
    const served = s.loaded();
    s.quiet();
    await served;
    await s.live.watching();
    expect(s.loads).toHaveLength(2);
    const [, second] = s.loads;
    expect(second!.previous).toBe(s.loads[0]!.result);
    expect(bodyOf(second!.result, "a")).toBe("second, a longer body\n");
    expect(second!.result.registry.get("b")).toBeDefined();
  });

  test("a server whose client never pauses still arms them, at a deadline, and the check finds the edit", async () => {
    const s = start({ "skills/a/SKILL.md": skillMd("a", "first") });
    await s.live.start();
    s.fixture.write("skills/a/SKILL.md", skillMd("a", "edited while the client kept asking"));
    // Never quiet: the watches are armed at the deadline, and the check finds the edit.
    await s.live.watching();
    expect(s.loads).toHaveLength(2);
    expect(bodyOf(s.loads[1]!.result, "a")).toBe("edited while the client kept asking\n");
  });

  test("when nothing changed, the check finds so: no second load is served", async () => {
    const s = start({ "skills/a/SKILL.md": skillMd("a", "first"), "skills/a/notes.md": "notes" });
    await s.live.start();
    s.quiet();
    await s.live.watching();
    expect(s.loads).toHaveLength(1);
  });

  test("once watching, an edit in a skill folder reloads through the folder's watch", async () => {
    const s = start({ "skills/a/SKILL.md": skillMd("a", "first") });
    await s.live.start();
    s.quiet();
    await s.live.watching();
    const reloaded = s.loaded();
    s.fixture.write("skills/a/references/new.md", "a supporting file");
    s.fixture.write("skills/a/SKILL.md", skillMd("a", "edited while watched"));
    await reloaded;
    expect(bodyOf(s.loads.at(-1)!.result, "a")).toBe("edited while watched\n");
  });

  test("without watching, nothing is deferred: watching() is resolved at once", async () => {
    fixture = makeFixture({ "skill-central.yaml": CONFIG, "skills/a/SKILL.md": skillMd("a", "x") });
    let loads = 0;
    live = new LiveSkills({
      load: { cwd: fixture.cwd, home: fixture.home },
      watch: false,
      warn: () => {},
      loaded: () => loads++,
      failed: (error) => {
        throw error;
      },
    });
    await live.start();
    await live.watching();
    expect(loads).toBe(1);
  });
});
