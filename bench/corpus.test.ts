import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { generateCorpus, hashCorpus } from "./corpus.ts";

const roots: string[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "sc-corpus-"));
  roots.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(roots.map((d) => rm(d, { recursive: true, force: true })));
});

describe("generateCorpus", () => {
  test("same n and seed give byte-identical output", async () => {
    const [a, b] = [await freshDir(), await freshDir()];
    await generateCorpus(a, 500, 7);
    await generateCorpus(b, 500, 7);
    expect(await hashCorpus(a)).toBe(await hashCorpus(b));
  });

  test("different seeds differ", async () => {
    const [a, b] = [await freshDir(), await freshDir()];
    await generateCorpus(a, 200, 1);
    await generateCorpus(b, 200, 2);
    expect(await hashCorpus(a)).not.toBe(await hashCorpus(b));
  });

  test("regenerating into the same dir drops stale files", async () => {
    const dir = await freshDir();
    await generateCorpus(dir, 400);
    const hashSmallFirst = await hashCorpus(dir);
    const other = await freshDir();
    await generateCorpus(other, 400);
    await generateCorpus(dir, 1000);
    await generateCorpus(dir, 400);
    expect(await hashCorpus(dir)).toBe(hashSmallFirst);
    expect(await hashCorpus(other)).toBe(hashSmallFirst);
  });

  test("info matches the files on disk", async () => {
    const dir = await freshDir();
    const info = await generateCorpus(dir, 1000);
    const glob = new Bun.Glob("layers/**/*.yaml");
    const byId = new Map<string, { priority: number; type: string; description: string; tags: string[] }>();
    let files = 0;
    for await (const rel of glob.scan(dir)) {
      files++;
      const layer = info.layers.find((l) => rel.startsWith(`layers/${l.name}/`));
      const skill = YAML.parse(await Bun.file(join(dir, rel)).text()) as {
        id: string;
        type: string;
        description: string;
        tags: string[];
      };
      expect(skill.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      const prev = byId.get(skill.id);
      if (!prev || (layer?.priority ?? 0) > prev.priority) {
        byId.set(skill.id, { ...skill, priority: layer?.priority ?? 0 });
      }
    }
    expect(files).toBe(1000);
    const effective = [...byId.values()];
    const prompts = effective.filter((s) => s.type === "prompt");
    expect(prompts.length).toBe(info.effective.prompts);
    expect(effective.length - prompts.length).toBe(info.effective.tools);
    expect(info.overrides.length).toBe(50);
    for (const o of info.overrides) expect(byId.get(o.id)?.description).toBe(o.description);
    const tagged = prompts.filter((p) => p.tags.includes(info.tagQuery.tag)).length;
    expect(tagged).toBe(info.tagQuery.expectedPrompts);
    expect(tagged / prompts.length).toBeGreaterThan(0.05);
    expect(tagged / prompts.length).toBeLessThan(0.15);
    expect(info.samplePrompt.expectedText).not.toContain("{{");
    expect(info.sampleTool.invalidArguments).not.toHaveProperty(info.sampleTool.missingProperty);
  });
});
