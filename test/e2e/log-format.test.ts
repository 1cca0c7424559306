import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Fixture, makeFixture, writeTokenFile } from "../helpers/fixture.ts";
import { connectHttp, startHttpServer } from "../helpers/http-server.ts";
import { connect, REPO_ROOT, SOURCE_TARGET } from "../helpers/server.ts";

const TOKEN = "alice-secret-0123456789abcdef";
const PROJECT = {
  ".skills/greet.yaml": "id: greet\ndescription: Greets\ntype: prompt\nprompt: 'Hello {{who}}'\n",
  // A broken file: its diagnostic is one more line the server writes.
  ".skills/broken.yaml": "id: broken\ntype: nonsense\n",
  tokens: `alice ${TOKEN}\n`,
};

/** Every non-empty stderr line, each parsed as JSON (a line that is not JSON fails the test here). */
function jsonLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

const isIsoTime = (value: unknown) => typeof value === "string" && new Date(value).toISOString() === value;

describe("mcp --log-format json", () => {
  let fixture: Fixture;
  beforeAll(() => {
    fixture = makeFixture(PROJECT);
    writeTokenFile(join(fixture.cwd, "tokens"), PROJECT.tokens);
  });
  afterAll(() => fixture?.cleanup());

  test("over HTTP every stderr line is JSON: {time, level, message}, or an access record naming the caller and the skill; never the token", async () => {
    const server = await startHttpServer({
      target: SOURCE_TARGET,
      cwd: fixture.cwd,
      home: fixture.home,
      args: ["--no-builtin", "--log-format", "json", "--token-file", join(fixture.cwd, "tokens")],
    });
    try {
      const { client } = await connectHttp(server.url, "legacy", { Authorization: `Bearer ${TOKEN}` });
      await client.getPrompt({ name: "greet", arguments: { who: "x" } });
      await client.close();
      await fetch(`${server.base}/healthz`);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const lines = jsonLines(server.stderr());
    for (const line of lines) expect(isIsoTime(line.time)).toBe(true);
    const messages = lines.filter((l) => "level" in l);
    expect(messages.every((l) => ["info", "warn"].includes(l.level as string) && typeof l.message === "string")).toBe(
      true,
    );
    expect(messages.some((l) => (l.message as string).startsWith("serving MCP over HTTP at"))).toBe(true);
    expect(messages.some((l) => (l.message as string).includes("broken.yaml"))).toBe(true);
    const access = lines.filter((l) => "route" in l);
    expect(access.find((l) => l.rpc === "prompts/get")).toMatchObject({
      method: "POST",
      route: "/mcp",
      status: 200,
      caller: "alice",
      skill: "greet",
    });
    expect(access.find((l) => l.route === "/healthz")).toMatchObject({ method: "GET", status: 200, caller: null });
    expect(server.stderr()).not.toContain(TOKEN);
  });

  test("over stdio too: the warnings and load report are JSON lines on stderr, stdout stays JSON-RPC", async () => {
    const connected = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, ["--no-builtin", "--log-format", "json"]);
    try {
      expect((await connected.client.listPrompts()).prompts.map((p) => p.name)).toContain("greet");
    } finally {
      await connected.close();
    }
    const lines = jsonLines(connected.stderr());
    expect(lines.some((l) => l.level === "info" && (l.message as string).includes("broken.yaml"))).toBe(true);
    for (const line of lines) expect(Object.keys(line)).toEqual(["time", "level", "message"]);
  });

  test("the default stays text: `[skill-central] ` lines", async () => {
    const connected = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, ["--no-builtin"]);
    await connected.client.listPrompts();
    await connected.close();
    const lines = connected.stderr().split("\n").filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toStartWith("[skill-central] ");
  });

  test("an unknown format is a usage error naming the choices", async () => {
    const proc = Bun.spawn([...[SOURCE_TARGET.command, ...SOURCE_TARGET.args], "--log-format", "yaml"], {
      cwd: fixture.cwd,
      env: { HOME: fixture.home, PATH: process.env.PATH ?? "" },
      stdin: "ignore",
      stderr: "pipe",
      stdout: "pipe",
    });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain('--log-format must be text or json, not "yaml"');
  });
});

describe("prom-client is loaded only when metrics are configured", () => {
  test("a server without a metrics token file never loads it; one with it does", async () => {
    const fixture = makeFixture();
    writeTokenFile(join(fixture.cwd, "metrics-token"), "metrics-secret-0123456789abcdef\n");
    const script = `
      import { serveMcpOverHttp } from ${JSON.stringify(join(REPO_ROOT, "src/mcp/http/index.ts"))};
      import { LiveRegistry } from ${JSON.stringify(join(REPO_ROOT, "src/mcp/registry-source.ts"))};
      const loaded = () => Object.keys(require.cache).some((k) => k.includes("prom-client"));
      const base = { host: "127.0.0.1", port: 0, stateless: false, live: false, tokens: undefined, allowedOrigins: [],
        allowedHosts: [], maxSessions: 1, sessionIdleMs: 60000, keepAliveMs: 15000, log() {} };
      const plain = serveMcpOverHttp(new LiveRegistry(), base);
      await fetch(plain.url.replace("/mcp", "/healthz"));
      const before = loaded();
      await plain.stop();
      const measured = serveMcpOverHttp(new LiveRegistry(), { ...base, metricsTokenFile: ${JSON.stringify(join(fixture.cwd, "metrics-token"))} });
      console.log(JSON.stringify({ before, after: loaded() }));
      await measured.stop();
    `;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    fixture.cleanup();
    expect(JSON.parse(out)).toEqual({ before: false, after: true });
  });
});
