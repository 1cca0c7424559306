import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { resolvedConfig } from "../helpers/resolved-config.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

async function resolve(files: Record<string, string>) {
  fixture = makeFixture(files);
  const { config, messages } = await resolvedConfig(fixture, { builtinDir: "/builtin" });
  return { config, diagnostics: messages };
}

describe("elicitation in the config files", () => {
  test("absent: auto, no shared key", async () => {
    const { config, diagnostics } = await resolve({});
    expect(config.elicitation).toEqual({ mode: "auto" });
    expect(diagnostics).toEqual([]);
  });

  test("off as a word or a YAML boolean; the project's over the user's", async () => {
    expect((await resolve({ "skill-central.yaml": "elicitation: off\n" })).config.elicitation).toEqual({ mode: "off" });
    const both = await resolve({
      "~/.skill-central/config.yaml": "elicitation: false\n",
      "skill-central.yaml": "elicitation: { mode: auto }\n",
    });
    expect(both.config.elicitation).toEqual({ mode: "auto" });
  });

  test("a mapping names the shared state key file, relative to the config file", async () => {
    const { config } = await resolve({ "skill-central.yaml": "elicitation: { stateKeyFile: keys/state.key }\n" });
    expect(config.elicitation).toEqual({ mode: "auto", stateKeyFile: join(fixture.cwd, "keys", "state.key") });
  });

  test("anything else is a warning and ignored", async () => {
    for (const [value, problem] of [
      ["sometimes", '"elicitation" must be auto or off, or a mapping { mode, stateKeyFile }; ignored'],
      ["{ mode: never }", '"elicitation.mode" must be auto or off; ignored'],
      ["{ key: x }", 'unknown key "elicitation.key" is ignored (known keys: mode, stateKeyFile)'],
    ] as const) {
      const { config, diagnostics } = await resolve({ "skill-central.yaml": `elicitation: ${value}\n` });
      expect(config.elicitation).toEqual({ mode: "auto" });
      expect(diagnostics).toEqual([problem]);
    }
  });

  test("a wrong key of the mapping is left out; the others still apply", async () => {
    const { config, diagnostics } = await resolve({
      "skill-central.yaml": "elicitation: { mode: off, stateKeyFile: 3 }\n",
    });
    expect(config.elicitation).toEqual({ mode: "off" });
    expect(diagnostics).toEqual(['"elicitation.stateKeyFile" must be a path to a file; ignored']);
  });
});
