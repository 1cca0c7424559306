import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { resolvedConfig } from "../helpers/resolved-config.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

async function resolve(files: Record<string, string>, extra: { builtin?: boolean } = {}) {
  fixture = makeFixture(files);
  const { config, diagnostics } = await resolvedConfig(fixture, { builtinDir: "/builtin", ...extra });
  return { config, diagnostics, layers: config.layers.map((l) => `${l.name}@${l.priority}`) };
}

describe("config merging", () => {
  test("with nothing configured: only the built-in layer, at priority 0", async () => {
    const { layers, config } = await resolve({});
    expect(layers).toEqual(["builtin@0"]);
    expect(config.layers[0]!.dir).toBe("/builtin");
  });

  test("a .skills/ folder is a layer at priority 100 when no config declares layers", async () => {
    const { layers, config } = await resolve({ ".skills/a.yaml": "x: 1" });
    expect(layers).toEqual(["builtin@0", "project@100"]);
    expect(config.layers[1]!.dir).toBe(join(fixture.cwd, ".skills"));
  });

  test(".skills/ is not used once a config declares layers", async () => {
    const { layers } = await resolve({
      ".skills/a.yaml": "x: 1",
      "skill-central.yaml": "layers:\n  - { name: team, path: ./team, priority: 50 }\n",
    });
    expect(layers).toEqual(["builtin@0", "team@50"]);
  });

  test("user layers come before project layers; paths resolve against each config's folder", async () => {
    const { config } = await resolve({
      "~/.skill-central/config.yaml": "layers:\n  - name: mine\n    path: ./personal\n    priority: 40\n",
      "skill-central.yaml": "layers:\n  - name: team\n    path: skills/team\n    priority: 20\n",
    });
    expect(config.layers.map((l) => [l.name, l.dir])).toEqual([
      ["builtin", "/builtin"],
      ["mine", join(fixture.home, ".skill-central", "personal")],
      ["team", join(fixture.cwd, "skills", "team")],
    ]);
    expect(config.files).toEqual([
      join(fixture.home, ".skill-central", "config.yaml"),
      join(fixture.cwd, "skill-central.yaml"),
    ]);
  });

  test("~ in a layer path expands to the home folder", async () => {
    const { config } = await resolve({
      "skill-central.yaml": "layers:\n  - { name: h, path: ~/skills, priority: 1 }\n",
    });
    expect(config.layers[1]!.dir).toBe(join(fixture.home, "skills"));
  });

  test("a project layer with the user's layer name replaces it and takes the project's place", async () => {
    const { config, layers } = await resolve({
      "~/.skill-central/config.yaml":
        "layers:\n  - { name: shared, path: ./a, priority: 10 }\n  - { name: mine, path: ./b, priority: 30 }\n",
      "skill-central.yaml": "layers:\n  - { name: shared, path: ./override, priority: 15 }\n",
    });
    expect(layers).toEqual(["builtin@0", "mine@30", "shared@15"]);
    expect(config.layers[2]!.dir).toBe(join(fixture.cwd, "override"));
  });

  test("an absolute layer path is taken as written, not appended to the config's folder", async () => {
    const { config } = await resolve({
      "skill-central.yaml": "layers:\n  - { name: abs, path: /srv/team-skills/, priority: 5 }\n",
    });
    expect(config.layers[1]!.dir).toBe("/srv/team-skills");
  });

  test("builtin: false in the user config turns the built-in layer off", async () => {
    const { layers } = await resolve({ "~/.skill-central/config.yaml": "builtin: false\n" });
    expect(layers).toEqual([]);
  });

  test("the project's builtin setting wins over the user's", async () => {
    const on = await resolve({
      "~/.skill-central/config.yaml": "builtin: false\n",
      "skill-central.yaml": "builtin: true\n",
    });
    expect(on.layers).toEqual(["builtin@0"]);
    const off = await resolve({
      "~/.skill-central/config.yaml": "builtin: true\n",
      "skill-central.yml": "builtin: false\n",
    });
    expect(off.layers).toEqual([]);
  });

  test("the caller's builtin: false (CLI --no-builtin) wins over every config", async () => {
    const { layers } = await resolve({ "skill-central.yaml": "builtin: true\n" }, { builtin: false });
    expect(layers).toEqual([]);
  });

  test("scalar settings: the project's pageSize overrides the user's", async () => {
    const { config } = await resolve({
      "~/.skill-central/config.yaml": "pageSize: 10\n",
      "skill-central.yaml": "pageSize: 25\n",
    });
    expect(config.pageSize).toBe(25);
  });
});

describe("config validation", () => {
  test("unknown keys are reported with their position and ignored", async () => {
    const { diagnostics, layers } = await resolve({ "skill-central.yaml": "builtin: true\nlayer:\n  - x\n" });
    expect(layers).toEqual(["builtin@0"]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.message).toContain('unknown key "layer"');
    expect(diagnostics[0]!.position).toEqual({ line: 2, column: 1 });
    expect(diagnostics[0]!.file).toBe(join(fixture.cwd, "skill-central.yaml"));
  });

  test("ill-typed values are reported and ignored, keeping the rest", async () => {
    const { diagnostics, layers } = await resolve({
      "skill-central.yaml":
        "builtin: maybe\npageSize: -1\nlayers:\n  - { name: ok, path: ./ok, priority: 5 }\n  - { name: bad, path: ./bad, priority: high }\n  - { path: ./x, priority: 1 }\n",
    });
    expect(layers).toEqual(["builtin@0", "ok@5"]);
    const messages = diagnostics.map((d) => d.message);
    expect(messages).toEqual([
      '"builtin" must be true or false; ignored',
      '"pageSize" must be a positive whole number; ignored',
      'layer "bad": "priority" must be a number (higher wins); layer ignored',
      'layer 3 needs "name"; ignored',
    ]);
    expect(diagnostics.map((d) => d.severity)).toEqual(["warning", "warning", "error", "error"]);
    expect(diagnostics[2]!.position?.line).toBe(5);
  });

  test("a config that is not valid YAML is reported with its position and ignored", async () => {
    const { diagnostics, layers } = await resolve({ "skill-central.yaml": "layers:\n  - { name: a, path: ./a\n" });
    expect(layers).toEqual(["builtin@0"]);
    expect(diagnostics[0]!.message).toStartWith("config ignored: invalid YAML");
    expect(diagnostics[0]!.position?.line).toBeGreaterThanOrEqual(2);
  });

  test("duplicate keys in a config are an error, not last-one-wins", async () => {
    const { diagnostics, layers } = await resolve({ "skill-central.yaml": "builtin: false\nbuiltin: true\n" });
    expect(diagnostics[0]!.message).toContain("duplicate key");
    expect(diagnostics[0]!.position).toEqual({ line: 2, column: 1 });
    expect(layers).toEqual(["builtin@0"]);
  });

  test("valid YAML in any style is understood (flow, block, comments, quoting)", async () => {
    const { layers } = await resolve({
      "skill-central.yaml": `# team config\n"layers": [ {"name": "a", "path": "./a", "priority": 7}, { name: 'b', path: "./b", priority: 8 } ]\nbuiltin: no_such_bool_is_false_in_yaml_1_2\n`,
    });
    expect(layers).toEqual(["builtin@0", "a@7", "b@8"]);
  });
});
