import { freePort } from "../helpers/free-port.ts";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { hostname } from "node:os";
import { join } from "node:path";
import { spawnNginx } from "../helpers/nginx.ts";
import { makeFixture, type Fixture, writeTokenFile } from "../helpers/fixture.ts";
import { rawRequest } from "../helpers/raw-http.ts";
import { accessLog, connectHttp, startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { REPO_ROOT, SOURCE_TARGET } from "../helpers/server.ts";
import { eventually } from "./live-session.ts";

/**
 * Two `--stateless` replicas behind a real nginx (the Debian package; .ci/run installs it),
 * configured by the file the README links (docs/nginx.conf), ports swapped for free ones, and
 * started by the commands its header gives (free ports and a token file of the test's own).
 */
const NGINX_CONF = join(REPO_ROOT, "docs", "nginx.conf");
const TOKEN = "team-token-0123456789abcdef";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

/**
 * The replica commands of docs/nginx.conf's header (`#   skill-central mcp --http …`), as the
 * arguments after `mcp --http`, with the port made `0` (a free one) and the token file made `tokens`.
 */
export function replicaCommands(template: string, tokens: string): string[][] {
  const lines = [...template.matchAll(/^#\s+skill-central mcp --http (.*)$/gm)].map((m) => m[1]!.trim().split(/\s+/));
  if (lines.length !== 2)
    throw new Error(`docs/nginx.conf's header should give 2 replica commands, it gives ${lines.length}`);
  return lines.map((args) =>
    args.map((arg, i) => {
      if (args[i - 1] === "--port") return "0";
      if (args[i - 1] === "--token-file") return tokens;
      if (arg.includes("…") || arg.includes("["))
        throw new Error(`docs/nginx.conf's replica command has a placeholder: ${args.join(" ")}`);
      return arg;
    }),
  );
}

/** docs/nginx.conf with the replicas' and nginx's own ports replaced; fails if the file's shape changed. */
export function configFor(template: string, replicaPorts: readonly number[], listenPort: number): string {
  const servers = [...template.matchAll(/^\s*server 127\.0\.0\.1:(\d+)/gm)];
  if (servers.length !== replicaPorts.length)
    throw new Error(`docs/nginx.conf should name ${replicaPorts.length} replicas, it names ${servers.length}`);
  let config = template;
  for (const [i, match] of servers.entries()) {
    config = config.replace(`127.0.0.1:${match[1]}`, `127.0.0.1:${replicaPorts[i]}`);
  }
  if (!/^\s*listen 8740;/m.test(config)) throw new Error("docs/nginx.conf should listen on 8740");
  return config.replace(/^(\s*)listen 8740;/m, `$1listen 127.0.0.1:${listenPort};`);
}

describe("two --stateless replicas behind nginx, configured by docs/nginx.conf", () => {
  let fixture: Fixture;
  let replicas: HttpServer[] = [];
  let nginx: Subprocess<"ignore", "pipe", "pipe"> | undefined;
  let url: string;
  let listen: number;
  const clients: Client[] = [];

  beforeAll(async () => {
    fixture = makeFixture({
      ".skills/echo.yaml":
        "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object, properties: { n: { type: integer } } }\nprompt: 'n={{n}}'\n",
      ".skills/review.yaml":
        "id: review\ndescription: Review a change\ntype: prompt\narguments:\n  - { name: focus, required: true }\nprompt: 'Review for {{focus}}.'\n",
      // What docs/nginx.conf asks of replicas that ask users for missing arguments: one shared state key.
      "skill-central.yaml": "elicitation: { stateKeyFile: ./state.key }\n",
      "state.key": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
    });
    const tokens = writeTokenFile(join(fixture.cwd, "tokens"), `team ${TOKEN}\n`);
    const template = await Bun.file(NGINX_CONF).text();
    replicas = await Promise.all(
      replicaCommands(template, tokens).map((args) =>
        startHttpServer({ target: SOURCE_TARGET, cwd: fixture.cwd, home: fixture.home, args }),
      ),
    );
    listen = freePort();
    const prefix = join(fixture.root, "nginx");
    nginx = spawnNginx(
      prefix,
      configFor(
        template,
        replicas.map((r) => Number(new URL(r.url).port)),
        listen,
      ),
    );
    url = `http://127.0.0.1:${listen}/mcp`;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const ready = await fetch(url.replace("/mcp", "/readyz")).catch(() => undefined);
      if (ready?.status === 200) break;
      if (nginx.exitCode !== null || Date.now() > deadline)
        throw new Error(
          `nginx did not come up: ${await new Response(nginx.stderr).text()} ${await Bun.file(
            `${prefix}/logs/error.log`,
          )
            .text()
            .catch(() => "")}`,
        );
      await Bun.sleep(50);
    }
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    if (nginx && nginx.exitCode === null) {
      nginx.kill("SIGQUIT");
      const timer = setTimeout(() => nginx?.kill("SIGKILL"), 5_000);
      await nginx.exited;
      clearTimeout(timer);
    }
    await Promise.all(replicas.map((r) => r.stop("SIGKILL")));
    fixture?.cleanup();
  });

  test("a client on another machine, reaching nginx by its address or by name, is served; without a token it gets 401", async () => {
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "elsewhere", version: "0" } },
    });
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    for (const host of [`10.1.2.3:${listen}`, `${hostname()}:${listen}`, `skills.example.com:${listen}`]) {
      const served = await rawRequest(listen, host, "POST", "/mcp", { ...headers, ...AUTH }, initialize);
      expect({ host, status: served.status }).toEqual({ host, status: 200 });
      expect(served.text).toContain('"serverInfo":{"name":"skill-central"');
      const refused = await rawRequest(listen, host, "POST", "/mcp", headers, initialize);
      expect({ host, status: refused.status }).toEqual({ host, status: 401 });
      expect(refused.text).toContain("a bearer token is required");
    }
    // The replicas still refuse a page of another site (DNS rebinding through nginx): nginx passes the browser's Origin on.
    const rebound = await rawRequest(
      listen,
      `evil.example:${listen}`,
      "POST",
      "/mcp",
      { ...headers, ...AUTH, Origin: `http://evil.example:${listen}` },
      initialize,
    );
    expect(rebound.status).toBe(403);
  });

  const callsOn = (replica: HttpServer) =>
    accessLog(replica.stderr()).filter((l) => l.includes("rpc=tools/call")).length;

  test("one client's requests alternate between the replicas, in both eras", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const { client } = await connectHttp(url, era, AUTH);
      clients.push(client);
      const before = replicas.map(callsOn);
      for (let n = 0; n < 20; n++) {
        const result = await client.callTool({ name: "echo", arguments: { n } });
        expect(result.content).toEqual([{ type: "text", text: `n=${n}` }]);
      }
      // The replicas' access logs arrive on their stderr pipes a moment after the answers.
      const served = await eventually(() => {
        const counts = replicas.map((r, i) => callsOn(r) - before[i]!);
        expect(counts[0]! + counts[1]!).toBe(20);
        return counts;
      });
      // Round-robin: each replica takes half, give or take one.
      expect(Math.abs(served[0]! - served[1]!)).toBeLessThanOrEqual(2);
    }
  });

  test("a missing argument's form, asked by one replica, is answered by the other: the retry carries state both can verify", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "elsewhere", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    };
    const getPrompt = async (id: number, params: Record<string, unknown>) => {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          ...AUTH,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": "2026-07-28",
          "Mcp-Method": "prompts/get",
          "Mcp-Name": "review",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "prompts/get", params: { ...params, _meta: meta } }),
      });
      return ((await response.json()) as { result: Record<string, unknown> }).result;
    };
    const getsOn = (replica: HttpServer) =>
      accessLog(replica.stderr()).filter((l) => l.includes("rpc=prompts/get")).length;
    const before = replicas.map(getsOn);
    const asked = await getPrompt(1, { name: "review", arguments: {} });
    expect(asked.resultType).toBe("input_required");
    const answered = await getPrompt(2, {
      name: "review",
      arguments: {},
      requestState: asked.requestState,
      inputResponses: { arguments: { action: "accept", content: { focus: "security" } } },
    });
    expect(answered.messages).toEqual([{ role: "user", content: { type: "text", text: "Review for security." } }]);
    // Round-robin: the question came from one replica and the answer went to the other.
    const served = await eventually(() => {
      const counts = replicas.map((r, i) => getsOn(r) - before[i]!);
      expect(counts[0]! + counts[1]!).toBe(2);
      return counts;
    });
    expect(served).toEqual([1, 1]);
  });

  test("stopping one replica (SIGTERM) loses no request: nginx retries on the other", async () => {
    // Four clients calling back to back, so requests are arriving on both replicas (over nginx's
    // kept-alive connections) while one of them drains and stops.
    const loops = await Promise.all([0, 1, 2, 3].map(async () => (await connectHttp(url, "modern", AUTH)).client));
    clients.push(...loops);
    const failures: unknown[] = [];
    let done = 0;
    let stopped = false;
    let afterStop = 0;
    const load = loops.map(async (client, loop) => {
      for (let n = 0; n < 60; n++) {
        const tag = loop * 1000 + n;
        await client
          .callTool({ name: "echo", arguments: { n: tag } })
          .then((r) => {
            if ((r.content as { text: string }[])[0]?.text !== `n=${tag}`) failures.push(r);
            done++;
            if (stopped) afterStop++;
          })
          .catch((error: unknown) => failures.push(error));
      }
    });
    while (done < 40) await Bun.sleep(2);
    const [stopping, staying] = replicas as [HttpServer, HttpServer];
    expect(await stopping.stop("SIGTERM")).toBe(0);
    stopped = true;
    await Promise.all(load);
    expect(failures).toEqual([]);
    expect(done).toBe(240);
    expect(afterStop).toBeGreaterThan(0);
    expect(accessLog(staying.stderr()).length).toBeGreaterThan(0);
  });
});
