import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { serveGitHttp, type GitHttpServer } from "../helpers/git-http.ts";
import { makeRemote, skill, type Remote } from "../helpers/git-remote.ts";
import { RawClient } from "../helpers/raw-client.ts";
import { SOURCE_ENTRY, SOURCE_TARGET } from "../helpers/server.ts";
import { buildForTests } from "../../script/build.ts";
import { runCli } from "./cli-run.ts";

/**
 * Git layers end to end: the real CLI and the real stdio server, real git, remotes on disk and
 * behind a real smart-HTTP server. The server is driven in raw JSON-RPC (no SDK client).
 */

let fixture: Fixture;
let remote: Remote;
let http: GitHttpServer | undefined;

beforeEach(() => {
  fixture = makeFixture();
  remote = makeRemote(join(fixture.root, "srv"));
});
afterEach(async () => {
  await http?.stop();
  http = undefined;
  fixture.cleanup();
});

const env = (home: string): Record<string, string> => ({ HOME: home, PATH: process.env.PATH ?? "", NO_COLOR: "1" });

/** Another person's machine: their own home (cache) and their own clone of the project. */
function member(name: string, fromProject: string): { cwd: string; home: string } {
  const cwd = join(fixture.root, name, "project");
  const home = join(fixture.root, name, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  for (const file of ["skill-central.yaml", "skill-central.lock"])
    copyFileSync(join(fromProject, file), join(cwd, file));
  return { cwd, home };
}

async function promptNames(client: RawClient): Promise<string[]> {
  const { prompts } = await client.call<{ prompts: { name: string }[] }>("prompts/list");
  return prompts.map((p) => p.name).filter((n) => n !== "skills:compose");
}

async function promptText(client: RawClient, name: string): Promise<string> {
  const result = await client.call<{ messages: { content: { text: string } }[] }>("prompts/get", {
    name,
    arguments: {},
  });
  return result.messages[0]!.content.text;
}

function expectOnlyJsonRpc(client: RawClient): void {
  for (const line of client.lines) expect(JSON.parse(line)).toHaveProperty("jsonrpc", "2.0");
}

describe("a team shares skills through git", () => {
  test("commit skill-central.yaml + skill-central.lock; after one sync every member's server serves the locked commit", async () => {
    http = serveGitHttp(join(fixture.root, "srv"));
    const locked = remote.commit({
      "skills/review.yaml": skill("review", "Review v1"),
      "skills/commit-message.yaml": skill("commit-message"),
    });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${http.url("skills.git")}, ref: main, path: skills }\n`,
    );

    const lead = await runCli(["sync"], fixture.cwd, fixture.home);
    expect(lead.code).toBe(0);
    expect(lead.stdout).toBe(
      `team  ${http.url("skills.git")} main, skills/\n  locked at ${locked.slice(0, 12)}\n  + commit-message  commit-message.yaml\n  + review  review.yaml\n\nskill-central.lock written\n`,
    );
    expect(lead.stderr).toBe("");
    // The remote moves on after the lock was committed.
    remote.commit({ "skills/review.yaml": skill("review", "Review v2"), "skills/new.yaml": skill("new") });

    const alice = member("alice", fixture.cwd);
    const before = await RawClient.start(SOURCE_TARGET, alice.cwd, env(alice.home));
    expect(await promptNames(before)).toEqual([]);
    await before.close();
    expect(before.stderr()).toContain("run `skill-central sync`");

    const sync = await runCli(["sync"], alice.cwd, alice.home);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain(
      `  fetched ${locked.slice(0, 12)}\n  + commit-message  commit-message.yaml\n  + review  review.yaml\n`,
    );
    expect(sync.stdout).toContain("main is now at");
    expect(readFileSync(join(alice.cwd, "skill-central.lock"), "utf8")).toBe(
      readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8"),
    );

    const server = await RawClient.start(SOURCE_TARGET, alice.cwd, env(alice.home));
    expect(await promptNames(server)).toEqual(["commit-message", "review"]);
    expect(await promptText(server, "review")).toBe("Review v1");
    await server.close();
    expectOnlyJsonRpc(server);
    expect(server.stderr()).not.toContain("warning");

    const show = await runCli(["show", "review", "--json"], alice.cwd, alice.home);
    expect(JSON.parse(show.stdout).git).toEqual({
      url: http.url("skills.git"),
      commit: locked,
      path: "skills/review.yaml",
    });
    const doctor = await runCli(["doctor"], alice.cwd, alice.home);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toMatch(
      new RegExp(
        `team +${locked.slice(0, 12)} +verified +(just now|\\d+ seconds? ago) +${http.url("skills.git").replace(/[.]/g, "\\.")} main, skills/ \\(locked\\)`,
      ),
    );

    // Alice moves the team to the new commit; the diff says what changed.
    const update = await runCli(["sync", "--update", "team"], alice.cwd, alice.home);
    expect(update.code).toBe(0);
    expect(update.stdout).toContain(`→ ${remote.tip()!.slice(0, 12)}\n  + new  new.yaml\n  ~ review  review.yaml\n`);
    // The lead's machine is now out of date with Alice's lock, until they sync.
    copyFileSync(join(alice.cwd, "skill-central.lock"), join(fixture.cwd, "skill-central.lock"));
    const check = await runCli(["sync", "--check"], fixture.cwd, fixture.home);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("out of date: no local copy of");
    const catchUp = await runCli(["sync"], fixture.cwd, fixture.home);
    expect(catchUp.stdout).toContain(
      `${locked.slice(0, 12)} → ${remote.tip()!.slice(0, 12)}\n  + new  new.yaml\n  ~ review  review.yaml\n`,
    );
    expect((await runCli(["sync", "--check"], fixture.cwd, fixture.home)).code).toBe(0);
  });

  test("a copy that appears while the server runs (a sync in a terminal) is served with list_changed", async () => {
    remote.commit({ "skills/review.yaml": skill("review") });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, path: skills }\n  - { name: local, priority: 10, path: ./local }\n`,
    );
    fixture.write("local/mine.yaml", skill("mine"));
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);

    const bob = member("bob", fixture.cwd);
    mkdirSync(join(bob.cwd, "local"));
    copyFileSync(join(fixture.cwd, "local/mine.yaml"), join(bob.cwd, "local/mine.yaml"));
    const server = await RawClient.start(SOURCE_TARGET, bob.cwd, env(bob.home));
    expect(await promptNames(server)).toEqual(["mine"]);
    expect(server.stderr()).toContain('git layer "team"');
    expect(server.stderr()).toContain("no local copy of commit");

    expect((await runCli(["sync"], bob.cwd, bob.home)).code).toBe(0);
    await server.notified("notifications/prompts/list_changed");
    expect(await promptNames(server)).toEqual(["mine", "review"]);
    await server.close();
    expectOnlyJsonRpc(server);
  });
});

describe("failure modes", () => {
  test("offline start: with the remote gone, the server serves the copy and sync only notes it", async () => {
    http = serveGitHttp(join(fixture.root, "srv"));
    remote.commit({ "skills/review.yaml": skill("review") });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${http.url("skills.git")}, path: skills }\n`,
    );
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);
    await http.stop();
    http = undefined;

    const server = await RawClient.start(SOURCE_TARGET, fixture.cwd, env(fixture.home));
    expect(await promptNames(server)).toEqual(["review"]);
    await server.close();
    expect(server.stderr()).toBe("");
    const sync = await runCli(["sync"], fixture.cwd, fixture.home);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain("note: cannot reach the remote");
    expect(sync.stdout).toContain("the local copy was verified");
  });

  test("a remote that asks for credentials fails fast: no prompt, no askpass, no secret printed", async () => {
    http = serveGitHttp(join(fixture.root, "srv"), { requireAuth: true });
    remote.commit({ "skills/review.yaml": skill("review") });
    // An IDE's askpass helper in the environment must not be run (it would pop up a dialog).
    const marker = join(fixture.root, "askpass-ran");
    const askpass = fixture.write("askpass.sh", `#!/bin/sh\ntouch '${marker}'\necho hunter2\n`);
    chmodSync(askpass, 0o755);
    const secretUrl = http.url("skills.git").replace("http://", "http://deploy:s3cret-t0ken@");
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: plain, priority: 50, git: ${http.url("skills.git")} }\n  - { name: token, priority: 60, git: '${secretUrl}' }\n`,
    );

    const sync = await runCli(["sync"], fixture.cwd, fixture.home, {
      GIT_ASKPASS: askpass,
      SSH_ASKPASS: askpass,
      DISPLAY: ":0",
    });
    expect(sync.code).toBe(1);
    expect(sync.stdout).toContain("terminal prompts disabled");
    expect(sync.stdout).toContain("Authentication failed");
    expect(sync.stdout).toContain("skill-central never prompts: give git a credential helper or an SSH key");
    expect(`${sync.stdout}${sync.stderr}`).not.toContain("s3cret");
    expect(sync.stdout).toContain("http://***@127.0.0.1");
    expect(existsSync(marker)).toBe(false);
    expect(http.requests).toBeGreaterThan(0);
    // It gave up rather than wait for input (git would wait up to 120 s, past this test's timeout):
    // "terminal prompts disabled" above is git saying so.

    const doctor = await runCli(["doctor", "--json"], fixture.cwd, fixture.home);
    expect(doctor.stdout).not.toContain("s3cret");
    expect(JSON.parse(doctor.stdout).git.map((g: { url: string; copy: string }) => [g.url, g.copy])).toEqual([
      [http.url("skills.git"), "not-synced"],
      [http.url("skills.git").replace("http://", "http://***@"), "not-synced"],
    ]);
  });

  test("two syncs at once (two windows, one cache) both succeed and leave one complete copy", async () => {
    remote.bulkCommit(Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`skills/s${i}.yaml`, skill(`s${i}`)])));
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, path: skills }\n`,
    );
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);
    const lock = readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8");

    const carol = member("carol", fixture.cwd);
    const [one, two] = await Promise.all([
      runCli(["sync"], carol.cwd, carol.home),
      runCli(["sync"], carol.cwd, carol.home),
    ]);
    expect([one.code, two.code]).toEqual([0, 0]);
    expect(readFileSync(join(carol.cwd, "skill-central.lock"), "utf8")).toBe(lock);
    const cache = join(carol.home, ".cache", "skill-central", "git");
    const [entry] = readdirSync(cache).filter((n) => n !== "projects");
    expect(readdirSync(join(cache, entry!, "copies"))).toHaveLength(1);
    // No lock left held, no half-written copy or repository.
    expect(readdirSync(join(cache, entry!)).sort()).toEqual(["copies", "fetch.json", "repo.git", "seals"]);
    const list = await runCli(["list", "--json"], carol.cwd, carol.home);
    expect(JSON.parse(list.stdout)).toHaveLength(400);
  });

  test("a sync killed while writing a copy: the previous copy keeps serving, the next sync finishes the job", async () => {
    const a = remote.commit({ "skills/review.yaml": skill("review", "Review A") });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, path: skills }\n`,
    );
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);
    const lock = readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8");
    // A large next commit, so that writing its copy takes a while.
    const files = Object.fromEntries(
      Array.from({ length: 8000 }, (_, i) => [`skills/bulk/f${i}.yaml`, skill(`f${i}`, "x".repeat(200))]),
    );
    const b = remote.bulkCommit({ ...files, "skills/review.yaml": skill("review", "Review B") });

    const cache = join(fixture.home, ".cache", "skill-central", "git");
    const [entry] = readdirSync(cache).filter((n) => n !== "projects");
    const copies = join(cache, entry!, "copies");
    const proc = Bun.spawn([process.execPath, SOURCE_ENTRY, "sync", "--update"], {
      cwd: fixture.cwd,
      env: env(fixture.home),
      stdout: "pipe",
      stderr: "pipe",
    });
    let caught = false;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && proc.exitCode === null) {
      const partial = readdirSync(copies).find((n) => n.startsWith(".tmp-"));
      if (partial && readdirSync(join(copies, partial)).length > 0) {
        proc.kill("SIGKILL");
        caught = true;
        break;
      }
      await Bun.sleep(1);
    }
    await proc.exited;
    expect(caught).toBe(true);
    expect(proc.signalCode).toBe("SIGKILL");

    // Half a copy on disk, under a name nobody serves; the lock and the served copy are untouched.
    expect(
      readdirSync(copies)
        .filter((n) => !n.startsWith(".tmp-"))
        .map((n) => n.slice(0, 40)),
    ).toEqual([a]);
    expect(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8")).toBe(lock);
    const server = await RawClient.start(SOURCE_TARGET, fixture.cwd, env(fixture.home));
    expect(await promptNames(server)).toEqual(["review"]);
    expect(await promptText(server, "review")).toBe("Review A");
    await server.close();

    // The killed process's lock is taken over, its leftovers removed, the update completed.
    const again = await runCli(["sync", "--update"], fixture.cwd, fixture.home);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`${a.slice(0, 12)} → ${b.slice(0, 12)}`);
    expect(again.stdout).toContain("+ … and 7980 more");
    expect(readdirSync(copies).filter((n) => n.startsWith(".tmp-"))).toEqual([]);
    expect(JSON.parse(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8")).layers.team.commit).toBe(b);
  }, 60_000);

  test("a force-pushed remote: the orphaned commit keeps serving, and sync and doctor say so", async () => {
    const a = remote.commit({ "skills/review.yaml": skill("review") });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, path: skills }\n`,
    );
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);
    remote.forcePush({ "skills/other.yaml": skill("other") });

    const sync = await runCli(["sync"], fixture.cwd, fixture.home);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain(`note: the locked commit ${a.slice(0, 12)} is no longer on the remote`);
    const doctor = await runCli(["doctor"], fixture.cwd, fixture.home);
    expect(doctor.stdout).toContain("verified, orphaned");
    expect(doctor.stdout).toContain(`warning: git layer "team": commit ${a.slice(0, 12)} is no longer on the remote`);
    expect((await runCli(["sync", "--check"], fixture.cwd, fixture.home)).code).toBe(1);

    const server = await RawClient.start(SOURCE_TARGET, fixture.cwd, env(fixture.home));
    expect(await promptNames(server)).toEqual(["review"]);
    await server.close();
  });
});

describe("without git", () => {
  test("the server never runs git to start: with no git on PATH it serves the synced copy; sync says git is missing", async () => {
    remote.commit({ "skills/review.yaml": skill("review") });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, path: skills }\n`,
    );
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);
    const noGit = { HOME: fixture.home, PATH: join(fixture.root, "empty-bin"), NO_COLOR: "1" };
    const server = await RawClient.start(SOURCE_TARGET, fixture.cwd, noGit);
    expect(await promptNames(server)).toEqual(["review"]);
    await server.close();
    expect(server.stderr()).toBe("");

    const proc = Bun.spawn([process.execPath, SOURCE_ENTRY, "sync", "--update"], {
      cwd: fixture.cwd,
      env: noGit,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect(code).toBe(1);
    expect(out).toContain("failed: git is not installed (or not on PATH); git layers need it");
    expect(err).toContain("git is not installed");
  });

  test("new never writes into a git layer's read-only copy", async () => {
    remote.commit({ "skills/review.yaml": skill("review") });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, path: skills }\n`,
    );
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).code).toBe(0);
    const named = await runCli(["new", "idea", "--type", "prompt", "--layer", "team"], fixture.cwd, fixture.home);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('layer "team" is a read-only copy of a git repository');
    const unnamed = await runCli(["new", "idea", "--type", "prompt"], fixture.cwd, fixture.home);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain("every layer comes from git");
  });
});

describe("a user layer that follows a branch", () => {
  test("refresh: the server fetches it in the background after start and announces it with list_changed", async () => {
    remote.commit({ "mine.yaml": skill("mine") });
    fixture.write(
      "~/.skill-central/config.yaml",
      `builtin: false\nlayers:\n  - { name: mine, priority: 70, git: ${remote.url}, ref: main, refresh: 1h }\n`,
    );
    const server = await RawClient.start(SOURCE_TARGET, fixture.cwd, env(fixture.home));
    // The first answer does not wait for the network.
    expect(await promptNames(server)).toEqual([]);
    expect(server.stderr()).toContain("or wait: the server fetches it in the background");
    await server.notified("notifications/prompts/list_changed");
    expect(await promptNames(server)).toEqual(["mine"]);
    await server.close();
    expectOnlyJsonRpc(server);
    expect(server.stderr()).toContain('git layer "mine"');
    expect(server.stderr()).toContain("fetched");
  });

  test("moving the remote dir away makes no difference to a started server", async () => {
    remote.commit({ "mine.yaml": skill("mine") });
    fixture.write(
      "~/.skill-central/config.yaml",
      `builtin: false\nlayers:\n  - { name: mine, priority: 70, git: ${remote.url}, ref: main }\n`,
    );
    expect((await runCli(["sync"], fixture.cwd, fixture.home)).stdout).toContain("(not locked: follows its ref)");
    renameSync(remote.dir, `${remote.dir}.gone`);
    const server = await RawClient.start(SOURCE_TARGET, fixture.cwd, env(fixture.home));
    expect(await promptNames(server)).toEqual(["mine"]);
    await server.close();
  });
});

describe("the compiled binary", () => {
  test("syncs a git layer and serves the locked commit", async () => {
    const binary = await buildForTests();
    const locked = remote.commit({ "skills/review.yaml": skill("review", "Review v1") });
    fixture.write(
      "skill-central.yaml",
      `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, path: skills }\n`,
    );
    const proc = Bun.spawn([binary, "sync", "--json"], {
      cwd: fixture.cwd,
      env: env(fixture.home),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(JSON.parse(out).layers).toMatchObject([{ name: "team", outcome: "locked", after: locked }]);
    remote.commit({ "skills/review.yaml": skill("review", "Review v2") });

    const server = await RawClient.start(
      { name: "binary", command: binary, args: ["mcp"] },
      fixture.cwd,
      env(fixture.home),
    );
    expect(await promptText(server, "review")).toBe("Review v1");
    await server.close();
    expectOnlyJsonRpc(server);
  }, 120_000);
});
