import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_NAMESPACE } from "../../src/storage/admin-log-record.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { connectHttp, type HttpServer, startHttpServer } from "../helpers/http-server.ts";
import { describePostgres, type Postgres, startPostgres } from "../helpers/postgres.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { makeKey, signerLine, type TestKey } from "../helpers/ssh-keys.ts";
import { type CliRun, runTarget } from "./cli-run.ts";
import { ListChanges } from "./live-session.ts";

/**
 * Issue 50 item 3 across replicas: two `mcp --http` servers on one PostgreSQL store. `block` run elsewhere (the CLI, the same store and
 * approvers) makes both stop serving the skill within 5 s, each telling its client
 * (prompts/list_changed); `unblock` serves it again on both. Verdicts wait on the notifications.
 */

const WITHIN_MS = 5_000;

export function killSwitchReplicasSuite(target: ServerTarget): void {
  describePostgres(`replicas on one PostgreSQL store obey a block within 5 s (${target.name})`, () => {
    let pg: Postgres;
    let fixture: Fixture;
    let replicas: HttpServer[] = [];
    let alice: TestKey;

    beforeAll(async () => {
      pg = startPostgres();
      fixture = makeFixture({
        ".skills/deploy.yaml": promptSkill("deploy"),
        ".skills/other.yaml": promptSkill("other"),
      });
      fixture.write("~/keys/.keep", "");
      alice = makeKey(join(fixture.home, "keys"), "alice", "ed25519");
      fixture.write("~/approvers", signerLine("alice@acme.dev", alice, `namespaces="${ADMIN_NAMESPACE}"`));
      fixture.write("~/.skill-central/config.yaml", `store: ${pg.url}\npolicy:\n  approvers: ~/approvers\n`);
      replicas = await Promise.all(
        // The second replica watches no file (--no-watch): governed, it obeys the log and says so all the same.
        [["--no-builtin"], ["--no-builtin", "--no-watch"]].map((args) =>
          startHttpServer({ target, cwd: fixture.cwd, home: fixture.home, args, env: pg.env }),
        ),
      );
    }, 60_000);

    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.stop("SIGKILL")));
      fixture?.cleanup();
      pg?.destroy();
    });

    const cli = (args: string[]): Promise<CliRun> => runTarget(target, fixture, args, pg.env);

    test("a block reaches both replicas, one started with --no-watch, within 5 s (list_changed, the skill gone from each); unblock brings it back on both", async () => {
      const sessions = await Promise.all(
        replicas.map(async (r) => {
          const { client } = await connectHttp(r.url, "modern");
          const changes = new ListChanges(client as Client);
          const stream = await changes.listen();
          return { client: client as Client, changes, stream };
        }),
      );
      const names = async (client: Client) =>
        (await client.listPrompts()).prompts
          .map((p) => p.name)
          .filter((n) => n === "deploy" || n === "other")
          .sort();
      try {
        for (const s of sessions) expect(await names(s.client)).toEqual(["deploy", "other"]);
        for (const s of sessions) expect(s.client.getServerCapabilities()?.prompts).toEqual({ listChanged: true });
        const blocked = await cli(["block", "deploy", "--reason", "prints the token", "--key", alice.file]);
        expect(blocked.stderr).toBe("");
        expect(blocked.code).toBe(0);
        await Promise.all(sessions.map((s) => s.changes.waitFor("prompts", 1, WITHIN_MS)));
        for (const s of sessions) expect(await names(s.client)).toEqual(["other"]);
        for (const r of replicas) expect(r.stderr()).toContain('"deploy" is blocked by alice@acme.dev');
        expect((await cli(["unblock", "deploy", "--reason", "rotated", "--key", alice.file])).code).toBe(0);
        await Promise.all(sessions.map((s) => s.changes.waitFor("prompts", 2, WITHIN_MS)));
        for (const s of sessions) expect(await names(s.client)).toEqual(["deploy", "other"]);
        // The password never reaches a replica's log.
        for (const r of replicas) expect(r.stderr()).not.toContain(pg.env.PGPASSWORD);
      } finally {
        if (process.env.DEBUG_GOV) for (const r of replicas) console.error(r.stderr());
        for (const s of sessions) {
          await s.stream.close().catch(() => {});
          await s.client.close().catch(() => {});
        }
      }
    }, 60_000);
  });
}
