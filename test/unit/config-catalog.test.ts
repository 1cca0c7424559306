import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { resolvedConfig } from "../helpers/resolved-config.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

async function resolve(files: Record<string, string>) {
  fixture = makeFixture(files);
  const { config, diagnostics } = await resolvedConfig(fixture, { builtinDir: "/builtin" });
  return { config, diagnostics };
}

describe("catalog settings in the config files", () => {
  test("absent: auto, tool skills as tools, a cap of 40", async () => {
    const { config, diagnostics } = await resolve({});
    expect(config.catalog).toEqual({ mode: "auto", toolSkills: "tools", toolCap: 40 });
    expect(diagnostics).toEqual([]);
  });

  test("the project's keys win over the user's, key by key", async () => {
    const { config } = await resolve({
      "~/.skill-central/config.yaml": "catalog: on\ntoolCap: 25\n",
      "skill-central.yaml": "toolSkills: catalog\ntoolCap: 60\n",
    });
    expect(config.catalog).toEqual({ mode: "on", toolSkills: "catalog", toolCap: 60 });
  });

  test("on and off read the same written as YAML 1.1 booleans", async () => {
    expect((await resolve({ "skill-central.yaml": "catalog: false\n" })).config.catalog?.mode).toBe("off");
    fixture.cleanup();
    expect((await resolve({ "skill-central.yaml": "catalog: true\n" })).config.catalog?.mode).toBe("on");
  });

  test("a bad value is a warning naming file, line and column, and the key keeps its default", async () => {
    const { config, diagnostics } = await resolve({
      "skill-central.yaml": "builtin: true\ncatalog: sometimes\ntoolSkills: both\ntoolCap: 2\n",
    });
    expect(config.catalog).toEqual({ mode: "auto", toolSkills: "tools", toolCap: 40 });
    const file = join(fixture.cwd, "skill-central.yaml");
    expect(diagnostics.map((d) => [d.file, d.position?.line, d.position?.column, d.message])).toEqual([
      [file, 2, 1, '"catalog" must be auto, on or off; ignored'],
      [file, 3, 1, '"toolSkills" must be tools or catalog; ignored'],
      [file, 4, 1, '"toolCap" must be a whole number from 3 (the catalog\'s own tools) to 10000; ignored'],
    ]);
    expect(diagnostics.every((d) => d.severity === "warning")).toBe(true);
  });

  test("toolCap must be a whole number", async () => {
    const { diagnostics } = await resolve({ "skill-central.yaml": "toolCap: 12.5\n" });
    expect(diagnostics.map((d) => d.message)).toEqual([
      '"toolCap" must be a whole number from 3 (the catalog\'s own tools) to 10000; ignored',
    ]);
  });

  test("toolSkills: catalog with catalog: off is a warning: tool skills stay tools", async () => {
    const { config, diagnostics } = await resolve({ "skill-central.yaml": "catalog: off\ntoolSkills: catalog\n" });
    expect(config.catalog).toEqual({ mode: "off", toolSkills: "catalog", toolCap: 40 });
    expect(diagnostics.map((d) => [d.severity, d.file, d.message])).toEqual([
      [
        "warning",
        join(fixture.cwd, "skill-central.yaml"),
        '"toolSkills: catalog" needs the catalog tools, which "catalog: off" turns off; tool skills stay tools',
      ],
    ]);
  });

  test("tokenBudget: the project's wins over the user's; out of range, it is ignored with a warning", async () => {
    const both = await resolve({
      "~/.skill-central/config.yaml": "tokenBudget: 8000\n",
      "skill-central.yaml": "tokenBudget: 3000\n",
    });
    expect(both.config.catalog?.tokenBudget).toBe(3000);
    const bad = await resolve({ "skill-central.yaml": "tokenBudget: 10\n" });
    expect(bad.config.catalog?.tokenBudget).toBeUndefined();
    expect(bad.diagnostics[0]!.message).toBe(
      '"tokenBudget" must be a whole number of tokens from 500 to 1000000; ignored',
    );
  });

  test("the unknown-key warning lists the new keys", async () => {
    const { diagnostics } = await resolve({ "skill-central.yaml": "catalogue: on\n" });
    expect(diagnostics[0]!.message).toBe(
      'unknown key "catalogue" is ignored (known keys: layers, builtin, pageSize, catalog, toolSkills, toolCap, tokenBudget, elicitation, http, usage, store, enable, audit, checks, policy, eval)',
    );
  });
});
