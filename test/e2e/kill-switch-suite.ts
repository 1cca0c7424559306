import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { connect, type ServerTarget } from "../helpers/server.ts";
import { hasSshKeygen, makeKey, signerLine, type TestKey } from "../helpers/ssh-keys.ts";
import { adminKeys, governUser } from "../helpers/governed-user.ts";
import { type CliRun, runTarget } from "./cli-run.ts";
import { ListChanges } from "./live-session.ts";

/**
 * Issue 50 item 3, the kill switch, against a target (the source entry, or the compiled binary),
 * on one machine (the user's SQLite store): `block` by an approver's key stops a running server
 * serving the skill within 5 s (it polls the log's newest entry off the request path) and sends
 * prompts/list_changed; `unblock` serves it again; a key policy.approvers does not list, or no
 * reason, records nothing.
 */

/** The time a block must take to reach a running server (issue 50): the verdict waits on the notification, bounded by it. */
const WITHIN_MS = 5_000;

export function killSwitchSuite(target: ServerTarget): void {
  describe(`block and unblock: the kill switch (${target.name})`, () => {
    let fixture: Fixture;
    afterEach(() => fixture?.cleanup());
    const run = (args: string[]): Promise<CliRun> => runTarget(target, fixture, args);

    function setUp(): { alice: TestKey; bob: TestKey; mallory: TestKey } {
      fixture = makeFixture({
        ".skills/deploy.yaml": promptSkill("deploy"),
        ".skills/other.yaml": promptSkill("other"),
      });
      const keys = adminKeys(fixture, hasSshKeygen ? "rsa" : "ed25519");
      governUser(fixture, keys);
      return keys;
    }

    test("a running server stops serving a blocked skill within 5 s and sends list_changed; list, show and doctor say who blocked it and why; unblock serves it again", async () => {
      const { alice, bob } = setUp();
      const server = await connect(target, fixture.cwd, fixture.home);
      try {
        const changes = new ListChanges(server.client);
        const names = async () =>
          (await server.client.listPrompts()).prompts
            .map((p) => p.name)
            .filter((n) => n === "deploy" || n === "other")
            .sort();
        expect(await names()).toEqual(["deploy", "other"]);
        const blocked = await run(["block", "deploy", "--reason", "leaks the deploy token", "--key", alice.file]);
        expect(blocked.stderr).toBe("");
        expect(blocked.stdout).toContain("blocked deploy (#1");
        expect(blocked.code).toBe(0);
        await changes.waitFor("prompts", 1, WITHIN_MS);
        expect(await names()).toEqual(["other"]);
        await expect(server.client.getPrompt({ name: "deploy" })).rejects.toThrow();
        expect(server.stderr()).toContain('"deploy" is blocked by alice@acme.dev');
        expect(server.stderr()).toContain("leaks the deploy token");

        const list = await run(["list", "--json"]);
        expect(JSON.stringify(JSON.parse(list.stdout))).not.toContain('"deploy"');
        const show = await run(["show", "deploy"]);
        expect(show.code).toBe(1);
        expect(show.stderr).toContain('"deploy" is blocked by alice@acme.dev');
        expect(show.stderr).toContain("leaks the deploy token");
        const doctor = await run(["doctor"]);
        expect(doctor.stdout).toContain("Blocked skills\n  deploy: blocked by alice@acme.dev at ");
        expect(doctor.stdout).toMatch(
          /Admin log.*\n {2}#1 \S+ block deploy by alice@acme.dev: leaks the deploy token\n/,
        );
        const doctorJson = JSON.parse((await run(["doctor", "--json"])).stdout);
        expect(doctorJson.governance.blocked).toMatchObject([
          {
            id: "deploy",
            principal: "alice@acme.dev",
            fingerprint: alice.fingerprint,
            reason: "leaks the deploy token",
            verified: true,
          },
        ]);

        const unblocked = await run(["unblock", "deploy", "--reason", "token rotated", "--key", bob.file]);
        expect(unblocked.code).toBe(0);
        await changes.waitFor("prompts", 2, WITHIN_MS);
        expect(await names()).toEqual(["deploy", "other"]);
        const log = JSON.parse((await run(["log", "--json"])).stdout);
        expect(
          log.entries.map((e: { action: string; principal: string; verified: boolean }) => [
            e.action,
            e.principal,
            e.verified,
          ]),
        ).toEqual([
          ["block", "alice@acme.dev", true],
          ["unblock", "bob@acme.dev", true],
        ]);
      } finally {
        await server.close();
      }
    }, 60_000);

    test("a governed server started with --no-watch declares listChanged, and a block reaches it as list_changed within 5 s", async () => {
      const { alice } = setUp();
      const server = await connect(target, fixture.cwd, fixture.home, ["--no-watch"]);
      try {
        // It watches no file, but the admin log changes what it serves: its lists can change.
        expect(server.client.getServerCapabilities()?.prompts).toEqual({ listChanged: true });
        expect(server.client.getInstructions()).toContain("list_changed");
        const changes = new ListChanges(server.client);
        const names = async () => (await server.client.listPrompts()).prompts.map((p) => p.name);
        expect(await names()).toContain("deploy");
        const blocked = await run(["block", "deploy", "--reason", "leaks the deploy token", "--key", alice.file]);
        expect(blocked.code).toBe(0);
        await changes.waitFor("prompts", 1, WITHIN_MS);
        expect(await names()).not.toContain("deploy");
        expect(await names()).toContain("other");
      } finally {
        await server.close();
      }
    }, 60_000);

    test("block --digest stops serving that version only (another layer's version of the skill is served in its place); the digest is signed and shown by log; unblock --digest lifts exactly that block", async () => {
      fixture = makeFixture({
        "~/team/deploy.yaml": promptSkill("deploy", {
          description: "Deploy, the team's",
          prompt: "Body of the team deploy",
        }),
      });
      fixture.write(
        "~/over/deploy.yaml",
        promptSkill("deploy", { description: "Deploy, the override", prompt: "Body of the override deploy" }),
      );
      fixture.write("~/keys/.keep", "");
      const alice = makeKey(join(fixture.home, "keys"), "alice", "ed25519");
      fixture.write("~/approvers", signerLine("alice@acme.dev", alice));
      fixture.write(
        "~/.skill-central/config.yaml",
        `store: ${join(fixture.home, "state.db")}\npolicy:\n  approvers: ~/approvers\nlayers:\n  - { name: team, path: ~/team, priority: 10 }\n  - { name: over, path: ~/over, priority: 20 }\n`,
      );
      const audited = JSON.parse((await run(["audit", "--format", "json"])).stdout).skills as {
        id: string;
        layer: string;
        digest: string;
      }[];
      const versions = audited.filter((s) => s.id === "deploy");
      expect(versions.map((s) => s.layer).sort()).toEqual(["over", "team"]);
      const digest = versions.find((s) => s.layer === "over")!.digest;
      expect(versions.find((s) => s.layer === "team")!.digest).not.toBe(digest);
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      const server = await connect(target, fixture.cwd, fixture.home);
      try {
        const changes = new ListChanges(server.client);
        const body = async () =>
          JSON.stringify((await server.client.getPrompt({ name: "deploy" })).messages.map((m) => m.content));
        expect(await body()).toContain("Body of the override deploy");

        const malformed = await run(["block", "deploy", "--digest", "abc", "--reason", "why", "--key", alice.file]);
        expect(malformed.code).toBe(2);
        expect(malformed.stderr).toContain("--digest takes sha256:");

        const blocked = await run([
          "block",
          "deploy",
          "--digest",
          digest,
          "--reason",
          "this build leaks",
          "--key",
          alice.file,
        ]);
        expect(blocked.stderr).toBe("");
        expect(blocked.stdout).toContain(`blocked deploy at ${digest} (#1`);
        expect(blocked.code).toBe(0);
        // The descriptions differ, so clients are told (list_changed names a change of what they list).
        await changes.waitFor("prompts", 1, WITHIN_MS);
        expect(await body()).toContain("Body of the team deploy");
        expect(server.stderr()).toContain(`"deploy" at ${digest} is blocked by alice@acme.dev`);
        const log = await run(["log", "--json"]);
        expect(JSON.parse(log.stdout).entries).toMatchObject([
          { action: "block", skill: "deploy", digest, principal: "alice@acme.dev", verified: true },
        ]);
        expect((await run(["log"])).stdout).toContain(`block deploy@${digest}`);
        const doctorJson = JSON.parse((await run(["doctor", "--json"])).stdout);
        expect(doctorJson.governance.blocked).toMatchObject([{ id: "deploy", digest, reason: "this build leaks" }]);

        // An unblock of the whole skill names another block: this one stays in force.
        expect((await run(["unblock", "deploy", "--reason", "not this one", "--key", alice.file])).code).toBe(0);
        const unblocked = await run([
          "unblock",
          "deploy",
          "--digest",
          digest,
          "--reason",
          "fixed",
          "--key",
          alice.file,
        ]);
        expect(unblocked.code).toBe(0);
        expect(unblocked.stdout).toContain(`unblocked deploy at ${digest}`);
        await changes.waitFor("prompts", 2, WITHIN_MS);
        expect(await body()).toContain("Body of the override deploy");
      } finally {
        await server.close();
      }
    }, 60_000);

    test("show and doctor name a block of one digest: the digest, who, why and the file it left out, that other versions are served; with every version blocked, show says so instead of unknown skill", async () => {
      fixture = makeFixture({ "~/team/deploy.yaml": promptSkill("deploy", { prompt: "Body of the team deploy" }) });
      fixture.write("~/over/deploy.yaml", promptSkill("deploy", { prompt: "Body of the override deploy" }));
      const keys = adminKeys(fixture, "ed25519");
      const { alice } = keys;
      governUser(fixture, keys);
      fixture.write(
        "~/.skill-central/config.yaml",
        `${readFileSync(join(fixture.home, ".skill-central/config.yaml"), "utf8")}layers:\n  - { name: team, path: ~/team, priority: 10 }\n  - { name: over, path: ~/over, priority: 20 }\n`,
      );
      const audited = JSON.parse((await run(["audit", "--format", "json"])).stdout).skills as {
        id: string;
        layer: string;
        digest: string;
      }[];
      const digestOf = (layer: string) => audited.find((s) => s.id === "deploy" && s.layer === layer)!.digest;
      const [over, team] = [digestOf("over"), digestOf("team")];
      const block = (digest: string, reason: string) =>
        run(["block", "deploy", "--digest", digest, "--reason", reason, "--key", alice.file]);
      expect((await block(over, "this build leaks")).code).toBe(0);

      const show = await run(["show", "deploy"]);
      expect(show.code).toBe(0);
      expect(show.stdout).toContain("Body of the team deploy");
      expect(show.stdout).toContain(
        "Blocked versions (block --digest holds back only the version with that digest; others are served)\n" +
          `  at ${over}: blocked by alice@acme.dev (${alice.fingerprint}) at `,
      );
      expect(show.stdout).toContain(
        `: this build leaks\n    left out: ${join(fixture.home, "over", "deploy.yaml")} (layer over)\n`,
      );
      const showJson = JSON.parse((await run(["show", "deploy", "--json"])).stdout);
      expect(showJson.blockedVersions).toEqual([
        {
          digest: over,
          principal: "alice@acme.dev",
          fingerprint: alice.fingerprint,
          at: expect.any(String),
          reason: "this build leaks",
          leftOut: [{ layer: "over", file: join(fixture.home, "over", "deploy.yaml") }],
        },
      ]);
      const doctor = (await run(["doctor"])).stdout;
      expect(doctor).toContain(`Blocked skills\n  deploy at ${over}: blocked by alice@acme.dev at `);
      expect(doctor).toContain(
        `: this build leaks\n    only this version is held back (any other version of deploy is served); left out: ${join(fixture.home, "over", "deploy.yaml")} (layer over)\n`,
      );
      const doctorJson = JSON.parse((await run(["doctor", "--json"])).stdout);
      expect(doctorJson.governance.blocked).toMatchObject([
        { id: "deploy", digest: over, leftOut: [{ layer: "over", file: join(fixture.home, "over", "deploy.yaml") }] },
      ]);

      // Every version blocked by its digest: not an unknown skill, but both blocks and their files.
      expect((await block(team, "this one too")).code).toBe(0);
      const none = await run(["show", "deploy"]);
      expect(none.code).toBe(1);
      expect(none.stderr).not.toContain("unknown skill");
      expect(none.stderr).toContain(
        'error: "deploy" is not served here: each version of it is blocked by its digest\n',
      );
      expect(none.stderr).toContain(`  at ${over}: blocked by alice@acme.dev`);
      expect(none.stderr).toContain(`  at ${team}: blocked by alice@acme.dev`);
      expect(none.stderr).toContain(`    left out: ${join(fixture.home, "team", "deploy.yaml")} (layer team)\n`);
    }, 60_000);

    test("a key policy.approvers does not list, a missing reason or key, or no approvers file: refused, nothing recorded", async () => {
      const { alice, mallory } = setUp();
      const unlisted = await run(["block", "deploy", "--reason", "mine now", "--key", mallory.file]);
      expect(unlisted.code).toBe(1);
      expect(unlisted.stderr).toContain("a key the signers file does not list");
      expect(unlisted.stderr).toContain("nothing was recorded");
      const noReason = await run(["block", "deploy", "--key", alice.file]);
      expect(noReason.code).toBe(2);
      expect(noReason.stderr).toContain("needs --reason");
      const blankReason = await run(["block", "deploy", "--reason", "  ", "--key", alice.file]);
      expect(blankReason.code).toBe(2);
      const noKey = await run(["block", "deploy", "--reason", "why"]);
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain("needs --key");
      fixture.write("~/.skill-central/config.yaml", `store: ${join(fixture.home, "state.db")}\n`);
      const noApprovers = await run(["block", "deploy", "--reason", "why", "--key", alice.file]);
      expect(noApprovers.code).toBe(1);
      expect(noApprovers.stderr).toContain("set policy.approvers");
      const log = await run(["log", "--json", "--signers", join(fixture.home, "approvers")]);
      expect(JSON.parse(log.stdout).entries).toEqual([]);
      // With nothing blocked, every skill is served.
      const list = await run(["list", "--json"]);
      expect(list.stdout).toContain('"deploy"');
    }, 60_000);
  });
}
