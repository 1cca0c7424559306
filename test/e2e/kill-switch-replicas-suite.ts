import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_NAMESPACE } from "../../src/storage/admin-log-record.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { connectHttp, type HttpServer, startHttpServer } from "../helpers/http-server.ts";
import { describePostgres, type Postgres, startPostgres } from "../helpers/postgres.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { makeKey, signerLine, type TestKey } from "../helpers/ssh-keys.ts";
import { runCommand } from "./cli-run.ts";
import { eventually, ListChanges } from "./live-session.ts";

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
      // The third watches nothing (`--no-watch`, as replicas in containers may run): it announces
      // no listChanged, yet stops serving the skill all the same.
      replicas = await Promise.all(
        [["--no-builtin"], ["--no-builtin"], ["--no-builtin", "--no-watch"]].map((args) =>
          startHttpServer({ target, cwd: fixture.cwd, home: fixture.home, args, env: pg.env }),
        ),
      );
    }, 60_000);

    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.stop("SIGKILL")));
      fixture?.cleanup();
      pg?.destroy();
    });

    const cli = (args: string[]) =>
      runCommand([target.command, ...target.args.slice(0, -1), ...args], fixture.cwd, {
        HOME: fixture.home,
        PATH: process.env.PATH ?? "",
        NO_COLOR: "1",
        ...pg.env,
      });

    test("a block reaches every replica within 5 s (list_changed on the two that watch, the skill gone from all three); unblock brings it back", async () => {
      const sessions = await Promise.all(
        replicas.slice(0, 2).map(async (r) => {
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
        const blocked = await cli(["block", "deploy", "--reason", "prints the token", "--key", alice.file]);
        expect(blocked.stderr).toBe("");
        expect(blocked.code).toBe(0);
        await Promise.all(sessions.map((s) => s.changes.waitFor("prompts", 1, WITHIN_MS)));
        for (const s of sessions) expect(await names(s.client)).toEqual(["other"]);
        const { client: unwatched } = await connectHttp(replicas[2]!.url, "modern");
        await eventually(async () => expect(await names(unwatched as Client)).toEqual(["other"]), WITHIN_MS);
        await unwatched.close();
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
