import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote, skill } from "../helpers/git-remote.ts";
import { connect, type ServerTarget } from "../helpers/server.ts";
import { makeKey, signerLine } from "../helpers/ssh-keys.ts";
import { governUser } from "../helpers/governed-user.ts";
import { type CliRun, runTarget } from "./cli-run.ts";
import { ListChanges } from "./live-session.ts";

/**
 * Issue 50 item 2, `policy.twoPerson` end to end against a target (the source entry, or the
 * compiled binary), with real git and real keys: a git layer with `signers` whose commit alice
 * signed, `policy.approval: remote`, `policy.twoPerson: true`. Alice's approval of the skill's
 * digest does not count (the skill awaits approval, and the message says she signed the
 * content); bob's does, and the running server then serves it and tells its client.
 */

/** A new admin log entry reaches a running server within this (issue 50); the wait is on the notification. */
const WITHIN_MS = 5_000;

export function twoPersonSuite(target: ServerTarget): void {
  describe(`policy.twoPerson: the approver must not be the commit's signer (${target.name})`, () => {
    let fixture: Fixture;
    afterEach(() => fixture?.cleanup());
    const run = (args: string[]): Promise<CliRun> => runTarget(target, fixture, args);

    test("the signer's own approval does not count (awaiting approval, saying why); another approver's serves the skill", async () => {
      fixture = makeFixture();
      const remote = makeRemote(join(fixture.root, "srv"));
      const keys = join(fixture.root, "keys");
      mkdirSync(keys, { recursive: true });
      const alice = makeKey(keys, "alice");
      const bob = makeKey(keys, "bob");
      remote.commit({ "skills/review.yaml": skill("review", "Review v1") }, { signWith: alice.file });
      fixture.write("team.allowed_signers", signerLine("alice@acme.dev", alice));
      fixture.write(
        "skill-central.yaml",
        `builtin: false\nlayers:\n  - { name: team, priority: 50, git: ${remote.url}, ref: main, path: skills, signers: team.allowed_signers }\n  - { name: local, priority: 10, path: local }\n`,
      );
      fixture.write("local/notes.yaml", skill("notes"));
      governUser(fixture, { alice, bob }, "  approval: remote\n  twoPerson: true\n");
      const sync = await run(["sync"]);
      expect(sync.code).toBe(0);
      const audited = JSON.parse((await run(["audit", "--format", "json"])).stdout).skills as {
        id: string;
        digest: string;
      }[];
      const digest = audited.find((s) => s.id === "review")!.digest;
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);

      const byAlice = await run(["approve", `review@${digest}`, "--reason", "I wrote it", "--key", alice.file]);
      expect(byAlice.code).toBe(0);
      const server = await connect(target, fixture.cwd, fixture.home);
      try {
        const changes = new ListChanges(server.client);
        const names = async () => (await server.client.listPrompts()).prompts.map((p) => p.name).sort();
        // The rest of the layer's neighbours are served; the skill alice signed and approved waits.
        expect(await names()).toEqual(["notes", "skills:compose"]);
        expect(server.stderr()).toContain(
          '"review" is not served: awaiting approval: approved only by alice@acme.dev, who signed the content (alice@acme.dev); policy.twoPerson needs another approver',
        );
        const doctor = JSON.parse((await run(["doctor", "--json"])).stdout);
        expect(doctor.governance.awaiting).toMatchObject([{ id: "review", layer: "team", digest }]);
        expect(doctor.governance.awaiting[0].why).toContain("policy.twoPerson needs another approver");

        const byBob = await run(["approve", `review@${digest}`, "--reason", "read it", "--key", bob.file]);
        expect(byBob.code).toBe(0);
        await changes.waitFor("prompts", 1, WITHIN_MS);
        expect(await names()).toEqual(["notes", "review", "skills:compose"]);
        const got = await server.client.getPrompt({ name: "review" });
        expect(JSON.stringify(got.messages)).toContain("Review v1");
      } finally {
        await server.close();
      }
    }, 90_000);
  });
}
