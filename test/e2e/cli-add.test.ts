import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote, type Remote } from "../helpers/git-remote.ts";
import { serveFolder } from "../helpers/static-host.ts";
import { runCli, runCliJson } from "./cli-run.ts";

/**
 * `skill-central add` and `remove` end to end: the real CLI from source, real git against bare
 * repositories on disk, a well-known index published by `skill-central publish` and served by a
 * static host on 127.0.0.1.
 */

const PIPE = readFileSync(
  join(import.meta.dir, "..", "fixtures", "audit", "remote-code-pipe", "malicious", "pipe-shell", "SKILL.md"),
);

/** A commented config whose layout a re-print would change (spacing before comments, quoting, order). */
const COMMENTED = `# Our skills: keep this comment
layers:
  - name: team
    path: ./.skills/team        # shared across the team
    priority: 50
  # the project's own
  - name: project
    path: './.skills/project'   # quoted on purpose
    priority: 100
builtin:   true      # odd spacing stays
`;

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\nFollow the steps for ${name}.\n`;

let fixture: Fixture;
let remote: Remote;

beforeEach(() => {
  fixture = makeFixture({
    "skill-central.yaml": COMMENTED,
    ".skills/team/explain.yaml":
      "id: explain-change\ndescription: Explain a code change for a reviewer\ntype: prompt\nprompt: Explain it\n",
    ".skills/project/.keep": "",
  });
  remote = makeRemote(join(fixture.root, "srv"), "release-skills.git");
  remote.commit({
    "skills/release-notes/SKILL.md": skillMd("release-notes", "Write release notes from merged pull requests"),
    "skills/changelog/SKILL.md": skillMd("changelog", "Update the changelog for a release version"),
    "README.md": "not a skill\n",
  });
});
afterEach(() => fixture.cleanup());

const run = (args: string[]) => runCli(args, fixture.cwd, fixture.home, { NO_COLOR: "1" });
const config = () => readFileSync(join(fixture.cwd, "skill-central.yaml"), "utf8");
const lock = () => JSON.parse(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8"));
const copies = () => {
  const root = join(fixture.home, ".cache", "skill-central", "git");
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => existsSync(join(root, d, "copies")))
    .flatMap((d) => readdirSync(join(root, d, "copies")).filter((c) => !c.startsWith(".")));
};

describe("skill-central add <git repository>", () => {
  test("appends the layer after the others, every other byte of the commented file kept, and locks it", async () => {
    const added = await run(["add", remote.url, "--path", "skills"]);
    expect(added.code).toBe(0);
    const entry = `  - name: release-skills\n    priority: 110\n    git: ${remote.url}\n    path: skills\n`;
    const at = COMMENTED.indexOf("builtin:");
    expect(config()).toBe(`${COMMENTED.slice(0, at)}${entry}${COMMENTED.slice(at)}`);
    expect(lock().layers["release-skills"]).toMatchObject({ path: "skills", commit: remote.tip() });
    // A backup of the file as it was, beside it.
    const backups = readdirSync(fixture.cwd).filter((f) => f.endsWith(".bak"));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(fixture.cwd, backups[0]!), "utf8")).toBe(COMMENTED);
  }, 60_000);

  test("says what arrived: the skills, their audit verdicts, the cost per client and competing pairs", async () => {
    const added = await run(["add", remote.url, "--path", "skills"]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("added layer release-skills (priority 110) to skill-central.yaml");
    expect(added.stdout).toContain(`locked at ${remote.tip()!.slice(0, 12)}`);
    expect(added.stdout).toContain("2 skills arrived:");
    expect(added.stdout).toContain("  pass  changelog");
    expect(added.stdout).toContain("  pass  release-notes");
    expect(added.stdout).toMatch(/Claude Code\s+\+\d+ {2}\([\d,]+ → [\d,]+ of 2,000; plan: full\)/);
    // Pairs at or above the competing-skills threshold with a new skill on one side (built-ins compete too).
    expect(added.stdout).toMatch(/\d+ competing pairs? \(overlap ≥ 0\.3; skill-central overlap lists them all\):\n/);
    expect(added.stdout).toMatch(/^ {2}0\.\d{3} {2}(\S+ {2})?(changelog|release-notes)\b/m);
  }, 60_000);

  test("names the project's skills the new layer now wins, and a lower layer's skills it does not serve", async () => {
    remote.commit({ "skills/explain-change/SKILL.md": skillMd("explain-change", "Explain a change, vendored") });
    const above = await run(["add", remote.url, "--path", "skills"]);
    expect(above.code).toBe(0);
    expect(above.stdout).toContain("  pass  explain-change (now served instead of layer team's)");
    expect((await run(["remove", "release-skills"])).code).toBe(0);
    const below = await run(["add", remote.url, "--path", "skills", "--priority", "10"]);
    expect(below.code).toBe(0);
    expect(below.stdout).toContain("  pass  explain-change (not served: layer team wins)");
  }, 60_000);

  test("--json reports the same as data, the cost added per client counted by budget's own plan", async () => {
    const before = await runCliJson<{ clients: { client: string; tokens: number }[] }>(
      ["budget"],
      fixture.cwd,
      fixture.home,
    );
    const added = await runCliJson<{
      added: boolean;
      commit: string;
      skills: { id: string; verdict: string }[];
      cost: { client: string; before: number; after: number; added: number }[];
      competing: { a: string; b: string; score: number }[];
    }>(["add", remote.url, "--path", "skills", "--name", "release"], fixture.cwd, fixture.home);
    expect(added.code).toBe(0);
    expect(added.json.added).toBe(true);
    expect(added.json.commit).toBe(remote.tip()!);
    expect(added.json.skills.map((s) => [s.id, s.verdict]).sort()).toEqual([
      ["changelog", "pass"],
      ["release-notes", "pass"],
    ]);
    const after = await runCliJson<{ clients: { client: string; tokens: number }[] }>(
      ["budget"],
      fixture.cwd,
      fixture.home,
    );
    for (const c of added.json.cost) {
      expect(c.before).toBe(before.json.clients.find((b) => b.client === c.client)!.tokens);
      expect(c.after).toBe(after.json.clients.find((b) => b.client === c.client)!.tokens);
      expect(c.added).toBe(c.after - c.before);
      expect(c.added).toBeGreaterThan(0);
    }
    expect(added.json.competing.length).toBeGreaterThan(0);
  }, 60_000);

  test("refuses a duplicate name and a duplicate source, changing nothing", async () => {
    expect((await run(["add", remote.url, "--path", "skills"])).code).toBe(0);
    const written = config();
    const sameSource = await run(["add", remote.url, "--path", "./skills/", "--name", "other"]);
    expect(sameSource.code).toBe(2);
    expect(sameSource.stderr).toContain('layer "release-skills" already serves the git repository');
    const sameName = await run(["add", remote.url, "--name", "team"]);
    expect(sameName.code).toBe(2);
    expect(sameName.stderr).toContain(
      'skill-central.yaml already has a layer named "team"; choose another with --name',
    );
    expect(config()).toBe(written);
  }, 60_000);

  test("a skill the audit gate blocks: the config and the lock are put back, exit 1", async () => {
    remote.commit({
      "skills/release-notes/SKILL.md": skillMd("release-notes", "Write release notes"),
      "skills/pipe-shell/SKILL.md": PIPE,
    });
    const refused = await run(["add", remote.url, "--path", "skills"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: layer "release-skills" not added:');
    expect(refused.stderr).toContain("pipe-shell");
    expect(refused.stderr).toContain("skill-central.yaml and the lock were put back as they were");
    expect(config()).toBe(COMMENTED);
    expect(existsSync(join(fixture.cwd, "skill-central.lock"))).toBe(false);
    expect(readdirSync(fixture.cwd).filter((f) => f.endsWith(".bak"))).toEqual([]);
  }, 60_000);

  test("--json on a refusal: { added: false, layer, problem }", async () => {
    remote.commit({ "skills/pipe-shell/SKILL.md": PIPE });
    const refused = await runCliJson<{ added: boolean; layer: { name: string }; problem: string }>(
      ["add", remote.url, "--path", "skills"],
      fixture.cwd,
      fixture.home,
    );
    expect(refused.code).toBe(1);
    expect(refused.json.added).toBe(false);
    expect(refused.json.layer.name).toBe("release-skills");
    expect(refused.json.problem).toContain("pipe-shell");
    expect(config()).toBe(COMMENTED);
  }, 60_000);

  test("a repository that cannot be fetched: the config is put back, exit 1", async () => {
    const refused = await run(["add", `file://${join(fixture.root, "nowhere.git")}`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: layer "nowhere" not added:');
    expect(config()).toBe(COMMENTED);
  }, 60_000);

  test("--dry-run prints the entry and changes nothing", async () => {
    const dry = await run(["add", remote.url, "--path", "skills", "--ref", "main", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("would add to skill-central.yaml:");
    expect(dry.stdout).toContain(
      `  - name: release-skills\n    priority: 110\n    git: ${remote.url}\n    ref: main\n`,
    );
    expect(dry.stdout).toContain("nothing was changed (--dry-run)");
    expect(config()).toBe(COMMENTED);
    expect(existsSync(join(fixture.cwd, "skill-central.lock"))).toBe(false);
    expect(copies()).toEqual([]);
  }, 60_000);

  test("creates skill-central.yaml when absent, the first layer at priority 50", async () => {
    fixture.remove("skill-central.yaml");
    const added = await run(["add", remote.url, "--path", "skills", "--priority", "50"]);
    expect(added.code).toBe(0);
    expect(config()).toBe(
      `layers:\n  - name: release-skills\n    priority: 50\n    git: ${remote.url}\n    path: skills\n`,
    );
    fixture.remove("skill-central.yaml");
    fixture.remove("skill-central.lock");
    const dry = await run(["add", remote.url, "--path", "skills", "--dry-run"]);
    expect(dry.stdout).toContain("would create skill-central.yaml:");
    expect(dry.stdout).toContain("priority: 50\n");
  }, 60_000);

  test("--ref and --path clash with the source's own, and go with git sources only", async () => {
    const folder = await run(["add", "./.skills/team", "--ref", "main"]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain("--ref and --path go with a git repository, not the folder ./.skills/team");
  });
});

describe("skill-central add <folder> and <well-known origin>", () => {
  test("a folder: ./ paths are folders, written relative to the project", async () => {
    fixture.write("vendor/tools/lint/SKILL.md", skillMd("lint-rules", "Check lint rules for a repository"));
    const added = await run(["add", "./vendor/tools"]);
    expect(added.code).toBe(0);
    expect(config()).toContain("  - name: tools\n    priority: 110\n    path: ./vendor/tools\nbuiltin:");
    expect(added.stdout).toContain("  pass  lint-rules");
  }, 60_000);

  test("owner/repo that is also a folder here is refused as ambiguous", async () => {
    mkdirSync(join(fixture.cwd, "acme", "skills"), { recursive: true });
    const refused = await run(["add", "acme/skills"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '"acme/skills" is both a folder here and GitHub\'s acme/skills: write ./acme/skills for the folder, or https://github.com/acme/skills for the repository',
    );
    expect(config()).toBe(COMMENTED);
  });

  test("an https origin is the well-known index it serves: added, synced and locked", async () => {
    const publisher = makeFixture({ ".skills/deploy/SKILL.md": skillMd("deploy-check", "Check a deployment plan") });
    expect((await runCli(["publish", "site"], publisher.cwd, publisher.home)).code).toBe(0);
    const host = serveFolder(join(publisher.cwd, "site"));
    try {
      const origin = `http://127.0.0.1:${host.port}`;
      const added = await run(["add", origin, "--name", "vendor"]);
      expect(added.code).toBe(0);
      expect(config()).toContain(`  - name: vendor\n    priority: 110\n    url: ${origin}/.well-known/agent-skills/\n`);
      expect(added.stdout).toContain("  pass  deploy-check");
      expect(lock().layers.vendor.skills).toHaveProperty("deploy-check");

      const removed = await run(["remove", "vendor"]);
      expect(removed.code).toBe(0);
      expect(config()).toBe(COMMENTED);
      expect(lock().layers).not.toHaveProperty("vendor");
      expect(removed.stdout).toContain("its cached copy was deleted");
    } finally {
      host.stop(true);
      publisher.cleanup();
    }
  }, 60_000);
});

describe("skill-central remove", () => {
  test("undoes add: the entry (comments kept), the lock entry and the cached copy", async () => {
    expect((await run(["add", remote.url, "--path", "skills"])).code).toBe(0);
    expect(copies()).toHaveLength(1);
    const removed = await run(["remove", "release-skills"]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("removed layer release-skills from skill-central.yaml");
    expect(config()).toBe(COMMENTED);
    expect(lock().layers).toEqual({});
    expect(copies()).toEqual([]);
  }, 60_000);

  test("a copy another layer serves stays", async () => {
    expect((await run(["add", remote.url, "--path", "skills"])).code).toBe(0);
    const twin = `  - { name: twin, priority: 5, git: "${remote.url}", path: skills }\n`;
    fixture.write("skill-central.yaml", config().replace("builtin:", `${twin}builtin:`));
    expect((await run(["sync"])).code).toBe(0);
    const removed = await run(["remove", "release-skills"]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("its cached copy stays: another layer of this project serves it");
    expect(copies()).toHaveLength(1);
  }, 60_000);

  test("removes the comment lines just above an entry with it, and leaves layers: [] after the last", async () => {
    const removed = await run(["remove", "project"]);
    expect(removed.code).toBe(0);
    expect(config()).toBe(COMMENTED.replace(/ {2}# the project's own\n[\s\S]*?priority: 100\n/, ""));
    expect((await run(["remove", "team"])).code).toBe(0);
    expect(config()).toBe("# Our skills: keep this comment\nlayers: []\nbuiltin:   true      # odd spacing stays\n");
  }, 60_000);

  test("--keep-cache leaves the copy; --json says what was done", async () => {
    expect((await run(["add", remote.url, "--path", "skills"])).code).toBe(0);
    const removed = await runCliJson<{ removed: string; lock: boolean; cache: string }>(
      ["remove", "release-skills", "--keep-cache"],
      fixture.cwd,
      fixture.home,
    );
    expect(removed.code).toBe(0);
    expect(removed.json).toMatchObject({ removed: "release-skills", lock: true, cache: "kept" });
    expect(copies()).toHaveLength(1);
  }, 60_000);

  test("refuses a layer only the user's config declares", async () => {
    fixture.write("~/.skill-central/config.yaml", "layers:\n  - { name: mine, path: ~/skills, priority: 70 }\n");
    const refused = await run(["remove", "mine"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('skill-central.yaml declares no layer named "mine"');
    expect(readFileSync(join(fixture.home, ".skill-central", "config.yaml"), "utf8")).toContain("name: mine");
  });

  test("refuses a layer the project's file does not declare", async () => {
    const refused = await run(["remove", "nope"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'skill-central.yaml declares no layer named "nope" (its layers: team, project); remove changes only the project\'s own file',
    );
    expect(config()).toBe(COMMENTED);
  });
});
