import type { StandardSchemaV1 } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, test } from "bun:test";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { connect, type ServerTarget } from "../helpers/server.ts";
import { adminKeys, governUser } from "../helpers/governed-user.ts";
import { type CliRun, runTarget } from "./cli-run.ts";
import { ListChanges } from "./live-session.ts";

/**
 * Issue 50 item 2, approvals tied to digests, against a target (the source entry, or the compiled
 * binary): with `policy.approval: all`, a skill is served only at a digest (as `audit --format
 * json` reports it) an approver signed; a new version waits while the rest of the layer is
 * served; an approval by a key policy.approvers does not list records nothing; a project's
 * `policy.approval: off` cannot remove the user's requirement.
 */

const WITHIN_MS = 5_000;

/** Any result: skills/list has no schema in the SDK client; the test checks the fields itself. */
const ANY: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value }) },
};

export function approvalsSuite(target: ServerTarget): void {
  describe(`approve ID@DIGEST with policy.approval (${target.name})`, () => {
    let fixture: Fixture;
    afterEach(() => fixture?.cleanup());
    const run = (args: string[]): Promise<CliRun> => runTarget(target, fixture, args);

    test("served only at an approved digest; a new version waits (naming the approved digest and the files changed since) while the rest is served; skills/list carries the approval; doctor lists what awaits; an unlisted key approves nothing; a project cannot switch it off", async () => {
      fixture = makeFixture({
        ".skills/deploy.yaml": promptSkill("deploy"),
        ".skills/other.yaml": promptSkill("other"),
        // Tighten-only: the project's `off` does not remove the user's `all`.
        "skill-central.yaml": "policy:\n  approval: off\n",
      });
      const { alice, bob, mallory } = adminKeys(fixture);
      governUser(fixture, { alice, bob }, "  approval: all\n");
      const digests = async () =>
        Object.fromEntries(
          (
            JSON.parse((await run(["audit", "--format", "json"])).stdout).skills as { id: string; digest: string }[]
          ).map((s) => [s.id, s.digest]),
        );
      const first = await digests();
      expect(first.deploy).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect((await run(["approve", `other@${first.other}`, "--reason", "read it", "--key", alice.file])).code).toBe(0);

      const server = await connect(target, fixture.cwd, fixture.home, ["--no-builtin"]);
      try {
        const changes = new ListChanges(server.client);
        const names = async () =>
          (await server.client.listPrompts()).prompts
            .map((p) => p.name)
            .filter((n) => n === "deploy" || n === "other")
            .sort();
        expect(await names()).toEqual(["other"]);
        expect(server.stderr()).toContain(
          `"deploy" is not served: awaiting approval: no approval of ${first.deploy} yet`,
        );

        const unlisted = await run([
          "approve",
          `deploy@${first.deploy}`,
          "--reason",
          "trust me",
          "--key",
          mallory.file,
        ]);
        expect(unlisted.code).toBe(1);
        expect(unlisted.stderr).toContain("nothing was recorded");
        const approved = await run(["approve", `deploy@${first.deploy}`, "--reason", "reviewed", "--key", bob.file]);
        expect(approved.stdout).toContain(`approved deploy@${first.deploy}`);
        await changes.waitFor("prompts", 1, WITHIN_MS);
        expect(await names()).toEqual(["deploy", "other"]);
        // skills/list carries the approval beside the audit verdict.
        const listed = (await server.client.request({ method: "skills/list", params: {} }, ANY)) as {
          skills: { uri: string; _meta: Record<string, unknown> }[];
        };
        const entry = listed.skills.find((e) => e.uri.includes("deploy"));
        expect(entry?._meta["dev.skill-central/approval"]).toMatchObject({
          principal: "bob@acme.dev",
          fingerprint: bob.fingerprint,
          digest: first.deploy,
        });
        expect(listed.skills.find((e) => e.uri.includes("other"))?._meta["dev.skill-central/approval"]).toMatchObject({
          principal: "alice@acme.dev",
          digest: first.other,
        });

        // A new version: the approval of the old digest is not replayed onto it.
        fixture.write(".skills/deploy.yaml", promptSkill("deploy", { prompt: "Deploy, and print the token" }));
        await changes.waitFor("prompts", 2, WITHIN_MS);
        expect(await names()).toEqual(["other"]);
        const second = await digests();
        expect(second.deploy).not.toBe(first.deploy);
        expect(server.stderr()).toContain(
          `awaiting approval: this version is ${second.deploy}; the approved one was ${first.deploy} (by bob@acme.dev); since then: changed deploy.yaml`,
        );
        const doctor = await run(["doctor", "--json"]);
        // With approval: all, the built-in skills wait for theirs too; deploy is named with the digest approved before.
        expect(JSON.parse(doctor.stdout).governance.awaiting.filter((a: { id: string }) => a.id === "deploy")).toEqual([
          {
            id: "deploy",
            layer: expect.any(String),
            digest: second.deploy,
            why: `awaiting approval: this version is ${second.deploy}; the approved one was ${first.deploy} (by bob@acme.dev); since then: changed deploy.yaml`,
          },
        ]);
        const doctorText = (await run(["doctor"])).stdout;
        expect(doctorText).toContain("\nAwaiting approval\n");
        expect(doctorText).toContain(`\n  deploy (layer project): awaiting approval: this version is ${second.deploy}`);
      } finally {
        await server.close();
      }
      expect((await run(["approve", "deploy", "--reason", "x", "--key", alice.file])).code).toBe(2);
    }, 60_000);
  });
}
