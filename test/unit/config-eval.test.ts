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

describe("eval.workspace in the config files", () => {
  test("absent: no workspace set (eval falls back to eval-workspace/ in the project root)", async () => {
    const { config, diagnostics } = await resolve({});
    expect(config.eval).toEqual({});
    expect(diagnostics).toEqual([]);
  });

  test("a path relative to the config file's folder; the project's over the user's", async () => {
    const user = await resolve({ "~/.skill-central/config.yaml": "eval: { workspace: runs }\n" });
    expect(user.config.eval).toEqual({ workspace: join(fixture.home, ".skill-central", "runs") });
    const both = await resolve({
      "~/.skill-central/config.yaml": "eval: { workspace: runs }\n",
      "skill-central.yaml": "eval:\n  workspace: ci/eval-runs\n",
    });
    expect(both.config.eval).toEqual({ workspace: join(fixture.cwd, "ci", "eval-runs") });
  });

  test("anything else is a warning and ignored", async () => {
    for (const [value, problem] of [
      ["yes", '"eval" must be a mapping { workspace }; ignored'],
      ["{ workspace: ' ' }", '"eval.workspace" must be a path to a folder; ignored'],
      ["{ folder: x }", 'unknown key "eval.folder" is ignored (known keys: workspace)'],
    ] as const) {
      const { config, diagnostics } = await resolve({ "skill-central.yaml": `eval: ${value}\n` });
      expect(config.eval).toEqual({});
      expect(diagnostics).toEqual([problem]);
    }
  });
});
