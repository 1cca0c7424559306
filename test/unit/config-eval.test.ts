import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { evalWorkspace } from "../../src/config/eval-settings.ts";
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
  test("absent: eval-workspace/ in the project root, not configured", async () => {
    const { config, diagnostics } = await resolve({});
    expect(config.eval).toEqual({});
    expect(evalWorkspace(config.eval, fixture.cwd)).toEqual({
      dir: join(fixture.cwd, "eval-workspace"),
      configured: false,
    });
    expect(diagnostics).toEqual([]);
  });

  test("a path relative to the config file's folder; the project's over the user's", async () => {
    const user = await resolve({ "~/.skill-central/config.yaml": "eval: { workspace: runs/evals }\n" });
    expect(evalWorkspace(user.config.eval, fixture.cwd)).toEqual({
      dir: join(fixture.home, ".skill-central", "runs", "evals"),
      configured: true,
    });
    const both = await resolve({
      "~/.skill-central/config.yaml": "eval: { workspace: /tmp/user-evals }\n",
      "skill-central.yaml": "eval:\n  workspace: ci/evals/\n",
    });
    expect(both.config.eval).toEqual({ workspace: join(fixture.cwd, "ci", "evals") });
    expect(both.diagnostics).toEqual([]);
  });

  test("anything else is a warning and ignored, naming the key", async () => {
    for (const [value, problem] of [
      ["./evals", '"eval" must be a mapping { workspace }; ignored'],
      ['{ workspace: "  " }', '"eval.workspace" must be a path to a folder; ignored'],
      ["{ workspce: x }", 'unknown key "eval.workspce" is ignored (known keys: workspace)'],
    ] as const) {
      const { config, diagnostics } = await resolve({ "skill-central.yaml": `eval: ${value}\n` });
      expect(evalWorkspace(config.eval, fixture.cwd).configured).toBe(false);
      expect(diagnostics).toEqual([problem]);
    }
  });
});
