import type { Client } from "@modelcontextprotocol/client";
import type { Subprocess } from "bun";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { type Fixture, makeFixture, writeTokenFile } from "../helpers/fixture.ts";
import { freePort } from "../helpers/free-port.ts";
import { accessLog, connectHttp, type HttpServer, startHttpServer } from "../helpers/http-server.ts";
import { spawnNginx } from "../helpers/nginx.ts";
import { describePostgres, type Postgres, startPostgres } from "../helpers/postgres.ts";
import { REPO_ROOT, type ServerTarget } from "../helpers/server.ts";
import { runCli } from "./cli-run.ts";

/**
 * Issue 49's replicas: two `mcp --http --stateless` servers behind a real nginx (docs/nginx.conf,
 * its ports swapped for free ones) and one PostgreSQL store. Uses answered by either replica appear
 * once in `usage`; a replica stopped (SIGTERM) and started again on the same store loses nothing
 * it acknowledged, and nginx sends the calls made meanwhile to the other one.
 */

const TOKEN = "team-token-0123456789abcdef";

/** docs/nginx.conf with the replicas' ports and nginx's own replaced. */
function nginxSite(template: string, replicaPorts: readonly number[], listen: number): string {
  let config = template;
  const servers = [...template.matchAll(/^\s*server 127\.0\.0\.1:(\d+)/gm)];
  if (servers.length !== replicaPorts.length) throw new Error(`docs/nginx.conf names ${servers.length} replicas`);
  for (const [i, match] of servers.entries())
    config = config.replace(`127.0.0.1:${match[1]}`, `127.0.0.1:${replicaPorts[i]}`);
  return config.replace(/^(\s*)listen 8740;/m, `$1listen 127.0.0.1:${listen};`);
}

export function teamStoreReplicasSuite(target: ServerTarget): void {
  describePostgres(`replicas behind nginx share one PostgreSQL store (${target.name})`, () => {
    let pg: Postgres;
    let fixture: Fixture;
    let nginx: Subprocess<"ignore", "pipe", "pipe"> | undefined;
    let replicas: HttpServer[] = [];
    const ports = [freePort(), freePort()];
    let url: string;

    const replica = (port: number) =>
      startHttpServer({
        target,
        cwd: fixture.cwd,
        home: fixture.home,
        args: [
          "--no-builtin",
          "--no-watch",
          "--stateless",
          "--port",
          String(port),
          "--token-file",
          join(fixture.cwd, "tokens"),
        ],
        env: pg.env,
      });

    beforeAll(async () => {
      pg = startPostgres();
      fixture = makeFixture({
        ".skills/echo.yaml":
          "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object, properties: { n: { type: integer } } }\nprompt: 'n={{n}}'\n",
        "~/.skill-central/config.yaml": `store: ${pg.url}\n`,
      });
      writeTokenFile(join(fixture.cwd, "tokens"), `team ${TOKEN}\n`);
      replicas = await Promise.all(ports.map(replica));
      const listen = freePort();
      const prefix = join(fixture.root, "nginx");
      nginx = spawnNginx(
        prefix,
        nginxSite(await Bun.file(join(REPO_ROOT, "docs", "nginx.conf")).text(), ports, listen),
      );
      url = `http://127.0.0.1:${listen}/mcp`;
      const deadline = Date.now() + 20_000;
      while ((await fetch(url.replace("/mcp", "/readyz")).catch(() => undefined))?.status !== 200) {
        if (nginx.exitCode !== null || Date.now() > deadline)
          throw new Error(
            `nginx did not come up: ${await Bun.file(`${prefix}/logs/error.log`)
              .text()
              .catch(() => "")}`,
          );
        await Bun.sleep(50);
      }
    }, 60_000);

    afterAll(async () => {
      if (nginx && nginx.exitCode === null) {
        nginx.kill("SIGQUIT");
        await nginx.exited;
      }
      await Promise.all(replicas.map((r) => r.stop("SIGKILL")));
      fixture?.cleanup();
      pg?.destroy();
    });

    async function calls(from: number, to: number): Promise<void> {
      const { client } = await connectHttp(
        url,
        "modern",
        { Authorization: `Bearer ${TOKEN}` },
        { name: "claude-code" },
      );
      try {
        for (let n = from; n < to; n++) {
          const result = await (client as Client).callTool({ name: "echo", arguments: { n } });
          expect(result.isError).toBeFalsy();
        }
      } finally {
        await client.close();
      }
    }

    test("uses answered by either replica appear once; a replica restarted on the same store loses none it acknowledged", async () => {
      await calls(0, 20);
      // Both replicas answered some of them (nginx round-robins).
      for (const r of replicas) expect(accessLog(r.stderr()).some((line) => line.includes("tools/call"))).toBe(true);
      // Replica 0 stops as an orchestrator stops it: what it acknowledged is written before it exits.
      expect(await replicas[0]!.stop("SIGTERM")).toBe(0);
      await calls(20, 30);
      replicas[0] = await replica(ports[0]!);
      await calls(30, 40);
      expect(await Promise.all(replicas.map((r) => r.stop("SIGTERM")))).toEqual([0, 0]);

      expect(Number(pg.psql("SELECT COUNT(*) FROM uses").trim())).toBe(40);
      const run = await runCli(["usage", "--json", "--no-builtin"], fixture.cwd, fixture.home, pg.env);
      expect(run.code).toBe(0);
      const [echo] = JSON.parse(run.stdout).skills;
      expect(echo).toMatchObject({ id: "echo", uses: 40, refused: 0, callers: 1, clients: { "claude-code": 40 } });
    }, 120_000);
  });
}
