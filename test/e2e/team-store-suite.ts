import type { Client } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { folderProject } from "../../src/storage/project-identity.ts";
import { type Fixture, makeFixture, writeTokenFile } from "../helpers/fixture.ts";
import { connectHttp, type HttpServer, startHttpServer } from "../helpers/http-server.ts";
import { openSession } from "../helpers/jsonrpc-session.ts";
import { describePostgres, PG_PASSWORD, type Postgres, startPostgres } from "../helpers/postgres.ts";
import { parseExposition, sampleValue } from "../helpers/prometheus.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { runCli } from "./cli-run.ts";
import { eventually } from "./live-session.ts";

/**
 * Issue 49's team store against the server `target` runs (the source entry, or the compiled
 * binary) and a real PostgreSQL (test/helpers/postgres.ts): stdio and HTTP servers record into one
 * database that `usage` reads, with caller, client, project, digest and outcome; the store is not
 * opened at start and a store that is down never fails nor slows a request; rows wait in the
 * bounded buffer, past it are dropped (one warning, the /metrics counter), and arrive when
 * PostgreSQL is back; the password reaches no log.
 */

const SKILLS: Record<string, string> = {
  ".skills/echo.yaml":
    "id: echo\ndescription: Echo a message back as the tool result for testing\ntype: tool\ninputSchema: { type: object, properties: { message: { type: string } } }\nprompt: 'echo: {{message}}'\n",
};
const TOKEN = "alice-token-0123456789abcdef";
const METRICS_TOKEN = "metrics-token-0123456789abcdef";
/** A bound on a failure (a row that never arrives), not a verdict. */
const DEADLINE_MS = 30_000;

export function teamStoreSuite(target: ServerTarget): void {
  describePostgres(`the team store on PostgreSQL (${target.name})`, () => {
    let pg: Postgres;
    let databases = 0;
    let fixture: Fixture | undefined;
    const servers: HttpServer[] = [];
    const clients: Client[] = [];
    beforeAll(() => {
      pg = startPostgres();
    });
    afterAll(() => pg?.destroy());
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close().catch(() => {});
      for (const server of servers.splice(0)) await server.stop("SIGKILL");
      fixture?.cleanup();
      fixture = undefined;
    });

    /** A fresh database, and a project whose user config names it as the store (the password only in PGPASSWORD). */
    function project(userConfig = "") {
      const name = `e${++databases}`;
      pg.psql(`CREATE DATABASE ${name}`);
      const url = pg.url.replace(/\/postgres$/, `/${name}`);
      fixture = makeFixture({
        ...SKILLS,
        "~/.skill-central/config.yaml": `store: ${url}\n${userConfig}`,
        "skill-central.yaml": "http: { metrics: { tokenFile: ./metrics-token } }\n",
      });
      writeTokenFile(join(fixture.cwd, "tokens"), `alice ${TOKEN}\n`);
      writeTokenFile(join(fixture.cwd, "metrics-token"), `${METRICS_TOKEN}\n`);
      const count = (where = "TRUE") => Number(pg.psql(`SELECT COUNT(*) FROM uses WHERE ${where}`, name).trim());
      return { url, name, fixture, count };
    }

    async function http(f: Fixture, env: Record<string, string> = pg.env) {
      const server = await startHttpServer({
        target,
        cwd: f.cwd,
        home: f.home,
        args: ["--no-builtin", "--no-watch", "--token-file", join(f.cwd, "tokens")],
        env,
      });
      servers.push(server);
      const { client } = await connectHttp(
        server.url,
        "legacy",
        { Authorization: `Bearer ${TOKEN}` },
        { name: "claude-code" },
      );
      clients.push(client);
      return { server, client };
    }

    const echo = async (client: Client, message: unknown = "x") =>
      client.callTool({ name: "echo", arguments: { message } as Record<string, unknown> });

    async function dropped(server: HttpServer): Promise<number> {
      const response = await fetch(`${server.base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(response.status).toBe(200);
      return sampleValue(parseExposition(await response.text()), "skill_central_usage_dropped_total");
    }

    test("HTTP and stdio servers record into one PostgreSQL store, with caller, client, project, digest and outcome; `usage` reads it", async () => {
      const { fixture: f, count, name } = project();
      const { server, client } = await http(f);
      for (let i = 0; i < 2; i++) expect((await echo(client, `m${i}`)).isError).toBeFalsy();
      expect((await echo(client, 5)).isError).toBe(true);
      await client.close();
      clients.length = 0;
      expect(await server.stop()).toBe(0);

      const session = openSession([target.command, ...target.args, "--no-builtin", "--no-watch"], {
        cwd: f.cwd,
        env: { HOME: f.home, PATH: process.env.PATH ?? "", NO_COLOR: "1", ...pg.env },
        timeoutMs: 30_000,
      });
      const init = await session.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "cursor-vscode", version: "1" },
      });
      expect(init.error).toBeUndefined();
      session.notify("notifications/initialized");
      expect(
        (await session.request("tools/call", { name: "echo", arguments: { message: "s" } })).error,
      ).toBeUndefined();
      expect(await session.close()).toBe(0);

      expect(count()).toBe(4);
      const here = folderProject(f.cwd);
      const run = await runCli(["usage", "--json", "--no-builtin"], f.cwd, f.home, pg.env);
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout);
      expect(report.thisProject).toBe(here);
      expect(report.skills).toEqual([
        expect.objectContaining({
          id: "echo",
          uses: 3,
          refused: 1,
          callers: 1,
          outcomes: { ok: 3, refused: 1 },
          clients: { "claude-code": 2, "cursor-vscode": 1 },
          projects: { [here]: 3 },
        }),
      ]);
      // Who signed in, over HTTP only; which version of the skill; never the project's path.
      expect(pg.psql("SELECT DISTINCT caller FROM uses WHERE caller IS NOT NULL", name).trim()).toBe("alice");
      expect(count("digest LIKE 'sha256:%'")).toBe(4);
      expect(count(`project = '${here}'`)).toBe(4);
      expect(pg.psql("SELECT string_agg(project, ',') FROM uses", name)).not.toContain(f.cwd);
      for (const said of [server.stderr(), session.stderr(), run.stderr]) expect(said).not.toContain(PG_PASSWORD);
    }, 120_000);

    test("the store is not opened at start; one that cannot be reached fails no request and is said once, without the password", async () => {
      const { fixture: f } = project();
      // The user's store is a database nobody listens for: the server starts and serves regardless.
      await Bun.write(join(f.home, ".skill-central", "config.yaml"), "store: postgres://skill@127.0.0.1:1/postgres\n");
      const { server, client } = await http(f);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
      expect(server.stderr()).not.toContain("usage:");
      for (let i = 0; i < 5; i++) expect((await echo(client, `m${i}`)).isError).toBeFalsy();
      await eventually(
        () =>
          expect(server.stderr()).toContain("usage: the store postgres://skill@127.0.0.1:1/postgres cannot be written"),
        DEADLINE_MS,
      );
      for (let i = 0; i < 5; i++) expect((await echo(client, `n${i}`)).isError).toBeFalsy();
      const warnings = server
        .stderr()
        .split("\n")
        .filter((line) => line.includes("usage:"));
      expect(warnings).toHaveLength(1);
      expect(server.stderr()).not.toContain(PG_PASSWORD);
    }, 60_000);

    test("PostgreSQL stopped mid-run: every call is answered, uses wait (bound 20), the rest are dropped with one warning and counted on /metrics, and the waiting ones arrive when it is back", async () => {
      const { fixture: f, count } = project("usage: { buffer: 20 }\n");
      const { server, client } = await http(f);
      for (let i = 0; i < 5; i++) expect((await echo(client, `a${i}`)).isError).toBeFalsy();
      await eventually(() => expect(count()).toBe(5), DEADLINE_MS);

      pg.stop("immediate");
      let answered = 0;
      try {
        for (let i = 0; i < 40; i++) {
          expect((await echo(client, `b${i}`)).isError).toBeFalsy();
          answered++;
        }
        await eventually(() => expect(server.stderr()).toContain("cannot be written"), DEADLINE_MS);
        expect(await dropped(server)).toBe(20);
      } finally {
        pg.start();
      }
      await eventually(() => expect(count()).toBe(25), DEADLINE_MS);
      for (let i = 0; i < 5; i++) expect((await echo(client, `c${i}`)).isError).toBeFalsy();
      expect(await dropped(server)).toBe(20);
      await client.close();
      clients.length = 0;
      expect(await server.stop()).toBe(0);

      const arrived = count();
      const lines = server.stderr().split("\n");
      console.log(
        `outage (${target.name}): 50 calls, 40 during the outage, ${answered} answered then; ${arrived} arrived, 20 dropped (reported on /metrics)`,
      );
      expect(arrived).toBe(30);
      expect(lines.filter((line) => line.includes("are dropped"))).toHaveLength(1);
      expect(lines.filter((line) => line.includes("cannot be written"))).toHaveLength(1);
      expect(lines.filter((line) => line.includes("is back; writing"))).toHaveLength(1);
      expect(server.stderr()).not.toContain(PG_PASSWORD);
    }, 120_000);
  });
}
