import { expect, test } from "bun:test";
import { makeFixture, promptSkill } from "../helpers/fixture.ts";
import { connect, SOURCE_TARGET } from "../helpers/server.ts";
import { eventually, ListChanges } from "./live-session.ts";

const CONFIG = "builtin: false\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n";

test("--no-watch serves the startup set for good and does not declare listChanged", async () => {
  const fixture = makeFixture({ "skill-central.yaml": CONFIG, "team/a.yaml": promptSkill("a") });
  // A watching server in the same folder is the witness that the change was there to see.
  const watching = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
  const fixed = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, ["--no-watch"]);
  try {
    expect(fixed.client.getServerCapabilities()?.prompts).toEqual({ listChanged: false });
    expect(fixed.client.getInstructions()).not.toContain("list_changed");
    expect(watching.client.getInstructions()).toContain("list_changed");
    const fixedChanges = new ListChanges(fixed.client);
    const watchingChanges = new ListChanges(watching.client);
    await fixed.client.listPrompts();
    await watching.client.listPrompts();
    fixture.write("team/b.yaml", promptSkill("b"));
    await watchingChanges.waitFor("prompts", 1);
    await eventually(async () =>
      expect((await watching.client.listPrompts()).prompts.map((p) => p.name)).toContain("b"),
    );
    expect((await fixed.client.listPrompts()).prompts.map((p) => p.name)).toEqual(["a", "skills:compose"]);
    expect(fixedChanges.counts).toEqual({ prompts: 0, tools: 0, resources: 0 });
  } finally {
    await fixed.close();
    await watching.close();
    fixture.cleanup();
  }
});
