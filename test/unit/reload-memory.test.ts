import { afterEach, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { invokePrompt } from "../../src/invoke/invoke.ts";
import { loadSkills, type LoadResult } from "../../src/load/load-skills.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

/** Live heap after a full collection, in MB. */
function liveHeapMb(): number {
  Bun.gc(true);
  return heapStats().heapSize / 1024 / 1024;
}

/** A block template (compiled by Handlebars) whose text changes with `n`. */
const skill = (id: string, n: number) =>
  `id: ${id}\ndescription: d\ntype: prompt\narguments:\n  - { name: items }\nprompt: |\n  ${"version ".repeat(20)}${n}\n  {{#if items}}{{items}}{{else}}none{{/if}}\n`;

test("memory stays flat across 100 reloads that change and render every skill", async () => {
  const files: Record<string, string> = {
    "skill-central.yaml": "builtin: false\nlayers:\n  - { name: main, path: ./skills, priority: 10 }\n",
  };
  for (let i = 0; i < 50; i++) files[`skills/s${i}.yaml`] = skill(`s${i}`, 0);
  fixture = makeFixture(files);
  let previous: LoadResult | undefined;
  let baseline = 0;
  for (let round = 1; round <= 100; round++) {
    for (let i = 0; i < 50; i++) fixture.write(`skills/s${i}.yaml`, skill(`s${i}`, round));
    const result: LoadResult = await loadSkills({
      cwd: fixture.cwd,
      home: fixture.home,
      ...(previous && { previous }),
    });
    for (let i = 0; i < 50; i++) {
      const rendered = invokePrompt(result.registry, `s${i}`, { items: "x" });
      expect(rendered.ok && rendered.text.endsWith(`${round}\nx`)).toBe(true);
    }
    previous = result;
    if (round === 20) baseline = liveHeapMb();
  }
  // Every round compiled 50 new templates: a cache that kept them would grow by megabytes.
  expect(liveHeapMb() - baseline).toBeLessThan(3);
});
