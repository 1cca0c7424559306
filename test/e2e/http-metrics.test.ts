import type { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { StandardSchemaV1 } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AccessRecord } from "../../src/mcp/http/access-log.ts";
import { BearerTokens } from "../../src/mcp/http/bearer-tokens.ts";
import { type HttpServing, serveMcpOverHttp } from "../../src/mcp/http/index.ts";
import type { ReloadOutcome } from "../../src/mcp/http/metrics.ts";
import type { HttpOptions } from "../../src/mcp/http/options.ts";
import { LiveRegistry } from "../../src/mcp/registry-source.ts";
import { createLogger } from "../../src/serve/log.ts";
import { type OpenSkills, openSkills } from "../../src/serve/skills.ts";
import { type Fixture, makeFixture, writeTokenFile } from "../helpers/fixture.ts";
import { connectHttp, postJson } from "../helpers/http-server.ts";
import { rawHttp } from "../helpers/raw-http.ts";
import { parseExposition, type Sample, sampleValue } from "../helpers/prometheus.ts";

const METRICS_TOKEN = "metrics-secret-0123456789abcdef";
const MCP_TOKEN = "alice-secret-0123456789abcdef";
const USES = "skill_central_skill_uses_total";
const REQUESTS = "skill_central_requests_total";

const PROJECT = {
  "skill-central.yaml": "catalog: on\ntoolSkills: catalog\n",
  ".skills/greet.yaml": "id: greet\ndescription: Greets\ntype: prompt\ntags: [hello]\nprompt: 'Hello {{who}}'\n",
  ".skills/echo.yaml":
    "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object, properties: { word: { type: string } }, required: [word] }\nprompt: 'Echo {{word}}'\n",
  ".skills/folder-skill/SKILL.md": "---\nname: folder-skill\ndescription: A folder skill\n---\nBody.\n",
};

const ANY: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value }) },
};

/** A real HTTP server over real skills that reload on change, in this process: the wiring of `runHttp`. */
interface Served {
  fixture: Fixture;
  serving: HttpServing;
  skills: OpenSkills;
  base: string;
  records: AccessRecord[];
  lines: string[];
  /** Resolves at the next reload, with its outcome. */
  nextReload(): Promise<ReloadOutcome>;
}

async function serve(http: Partial<HttpOptions> = {}): Promise<Served> {
  const fixture = makeFixture(PROJECT);
  const records: AccessRecord[] = [];
  const lines: string[] = [];
  let waiting: ((outcome: ReloadOutcome) => void) | undefined;
  const source = new LiveRegistry();
  const serving = serveMcpOverHttp(source, {
    host: "127.0.0.1",
    port: 0,
    stateless: false,
    live: true,
    tokens: BearerTokens.parse(`alice ${MCP_TOKEN}\n`, "tokens"),
    allowedOrigins: [],
    allowedHosts: [],
    maxSessions: 10,
    sessionIdleMs: 60_000,
    keepAliveMs: 15_000,
    log: (line) => lines.push(line),
    accessLog: (record) => records.push(record),
    ...http,
  });
  const logger = createLogger({}, (text) => lines.push(text));
  const skills = openSkills({ cwd: fixture.cwd, home: fixture.home, builtin: false }, source, logger, [], {
    reloaded(outcome) {
      serving.reloaded(outcome);
      waiting?.(outcome);
    },
  });
  await skills.live.start();
  const nextReload = () => new Promise<ReloadOutcome>((resolve) => (waiting = resolve));
  return { fixture, serving, skills, base: new URL(serving.url).origin, records, lines, nextReload };
}

async function stop(served: Served | undefined): Promise<void> {
  if (!served) return;
  await served.serving.stop();
  served.skills.live.close();
  served.skills.close();
  served.fixture.cleanup();
}

const withToken = (token: string) => ({ Authorization: `Bearer ${token}` });

function sumOf(samples: readonly Sample[], name: string, labels: Record<string, string>): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

describe("GET /metrics with a metrics token file", () => {
  let served: Served;
  const clients: Client[] = [];
  let client: Client;
  const scrape = async (): Promise<Sample[]> => {
    const response = await fetch(`${served.base}/metrics`, { headers: withToken(METRICS_TOKEN) });
    expect(response.status).toBe(200);
    return parseExposition(await response.text());
  };
  const connect = async (): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> => {
    const connected = await connectHttp(served.serving.url, "legacy", withToken(MCP_TOKEN));
    clients.push(connected.client);
    return connected;
  };
  const tool = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  beforeAll(async () => {
    const fixture = makeFixture();
    writeTokenFile(`${fixture.cwd}/metrics-token`, `${METRICS_TOKEN}\n`);
    served = await serve({ metricsTokenFile: `${fixture.cwd}/metrics-token` });
    served.fixture.cleanup = ((cleanup) => () => {
      cleanup();
      fixture.cleanup();
    })(served.fixture.cleanup);
    client = (await connect()).client;
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await stop(served);
  });

  test("answers only its own token: none, a wrong one, an MCP token or another scheme get 401; the right one the exposition", async () => {
    const cases: Record<string, string>[] = [
      {},
      withToken("not-the-metrics-token-0123456789"),
      withToken(MCP_TOKEN),
      { Authorization: `Basic ${btoa(`metrics:${METRICS_TOKEN}`)}` },
      { Authorization: `Bearer ${METRICS_TOKEN} extra` },
    ];
    for (const headers of cases) {
      const response = await fetch(`${served.base}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="skill-central-metrics"');
      expect(await response.text()).not.toContain("skill_central");
    }
    const response = await fetch(`${served.base}/metrics`, { headers: withToken(METRICS_TOKEN) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    expect(await response.text()).toContain("# TYPE skill_central_requests_total counter");
  });

  test("only GET; the Host check applies as on /mcp", async () => {
    const post = await fetch(`${served.base}/metrics`, { method: "POST", headers: withToken(METRICS_TOKEN) });
    expect(post.status).toBe(405);
    const rebinding = await rawHttp(
      served.base,
      `GET /metrics HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer ${METRICS_TOKEN}\r\nConnection: close\r\n\r\n`,
    );
    expect(rebinding.status).toBe(403);
  });

  test("skills by kind and prom-client's default process metrics", async () => {
    const samples = await scrape();
    expect(sampleValue(samples, "skill_central_skills", { kind: "prompt" })).toBe(1);
    expect(sampleValue(samples, "skill_central_skills", { kind: "tool" })).toBe(1);
    expect(sampleValue(samples, "skill_central_skills", { kind: "folder" })).toBe(1);
    expect(sampleValue(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(sampleValue(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === "nodejs_heap_size_used_bytes")).toBe(true);
  });

  test("uses per skill move by exactly the calls that served a skill; unknown ids, errors and the catalog's own names count nothing", async () => {
    const before = await scrape();
    await client.getPrompt({ name: "greet", arguments: { who: "a" } });
    await client.getPrompt({ name: "greet", arguments: { who: "b" } });
    await client.getPrompt({ name: "skills:compose", arguments: { tags: "hello" } });
    await expect(client.getPrompt({ name: "nope" })).rejects.toThrow();
    expect(await tool("echo", { word: "hi" })).toMatchObject({ content: [{ text: "Echo hi" }] });
    expect(await tool("echo", {})).toMatchObject({ isError: true });
    await expect(tool("nope", {})).rejects.toThrow();
    expect(await tool("load_skill", { name: "greet", arguments: { who: "c" } })).not.toHaveProperty("isError");
    expect(await tool("load_skill", { name: "nope" })).toMatchObject({ isError: true });
    expect(await tool("run_skill_tool", { name: "echo", arguments: { word: "x" } })).not.toHaveProperty("isError");
    expect(await tool("run_skill_tool", { name: "nope", arguments: {} })).toMatchObject({ isError: true });
    expect(await tool("find_skills", { query: "greet" })).not.toHaveProperty("isError");
    await client.request({ method: "skills/get", params: { uri: "skill://folder-skill/SKILL.md" } }, ANY);
    await expect(
      client.request({ method: "skills/get", params: { uri: "skill://nope/SKILL.md" } }, ANY),
    ).rejects.toThrow();
    const after = await scrape();
    const delta = (labels: Record<string, string>) =>
      sampleValue(after, USES, labels) - sampleValue(before, USES, labels);
    expect(delta({ skill: "greet", via: "prompts/get" })).toBe(2);
    expect(delta({ skill: "greet", via: "load_skill" })).toBe(1);
    expect(delta({ skill: "echo", via: "tools/call" })).toBe(2);
    expect(delta({ skill: "folder-skill", via: "skills/get" })).toBe(1);
    const named = new Set(after.filter((s) => s.name === USES).map((s) => s.labels.skill));
    expect([...named].sort()).toEqual(["echo", "folder-skill", "greet"]);
    const requests = (method: string) =>
      sumOf(after, REQUESTS, { method, status: "200" }) - sumOf(before, REQUESTS, { method, status: "200" });
    expect(requests("prompts/get")).toBe(4);
    expect(requests("tools/call")).toBe(8);
    expect(requests("skills/get")).toBe(2);
    const timed = (s: Sample[]) =>
      sampleValue(s, "skill_central_request_duration_seconds_count", { method: "prompts/get" });
    expect(timed(after) - timed(before)).toBe(4);
    expect(
      sampleValue(after, "skill_central_request_duration_seconds_bucket", { method: "prompts/get", le: "+Inf" }),
    ).toBe(timed(after));
  });

  test("a 2026-07-28 request (served by the SDK's stateless handler) counts the same", async () => {
    const before = sampleValue(await scrape(), USES, { skill: "greet", via: "prompts/get" });
    const modern = await connectHttp(served.serving.url, "modern", withToken(MCP_TOKEN));
    clients.push(modern.client);
    await modern.client.getPrompt({ name: "greet", arguments: { who: "m" } });
    expect(sampleValue(await scrape(), USES, { skill: "greet", via: "prompts/get" })).toBe(before + 1);
  });

  test("a method the server does not know is counted as `other`, and a client cannot add label values", async () => {
    const before = await scrape();
    const response = await postJson(
      served.serving.url,
      { jsonrpc: "2.0", id: 9, method: "made/up\nmethod", params: {} },
      withToken(MCP_TOKEN),
    );
    expect(response.status).toBe(400);
    const after = await scrape();
    expect(sumOf(after, REQUESTS, { method: "other" }) - sumOf(before, REQUESTS, { method: "other" })).toBe(1);
    expect(after.some((s) => s.labels.method?.includes("made"))).toBe(false);
  });

  test("sessions_open goes up with a session and down when it ends", async () => {
    const open = async () => sampleValue(await scrape(), "skill_central_sessions_open");
    const before = await open();
    const { transport } = await connect();
    expect(await open()).toBe(before + 1);
    await transport.terminateSession();
    expect(await open()).toBe(before);
  });

  test("a reload after a file edit is counted ok; the series of a skill a reload removed are dropped", async () => {
    let reloaded = served.nextReload();
    served.fixture.write(".skills/extra.yaml", "id: extra\ndescription: Extra\ntype: prompt\nprompt: 'Extra'\n");
    expect(await reloaded).toBe("ok");
    const afterAdd = await scrape();
    expect(sampleValue(afterAdd, "skill_central_reloads_total", { result: "ok" })).toBe(1);
    expect(sampleValue(afterAdd, "skill_central_reloads_total", { result: "failed" })).toBe(0);
    expect(sampleValue(afterAdd, "skill_central_skills", { kind: "prompt" })).toBe(2);
    await client.getPrompt({ name: "extra" });
    expect(sampleValue(await scrape(), USES, { skill: "extra", via: "prompts/get" })).toBe(1);

    reloaded = served.nextReload();
    served.fixture.remove(".skills/extra.yaml");
    expect(await reloaded).toBe("ok");
    const afterRemove = await scrape();
    expect(afterRemove.some((s) => s.name === USES && s.labels.skill === "extra")).toBe(false);
    expect(sampleValue(afterRemove, USES, { skill: "greet", via: "prompts/get" })).toBeGreaterThan(0);
    expect(sampleValue(afterRemove, "skill_central_reloads_total", { result: "ok" })).toBe(2);
    served.serving.reloaded("failed");
    expect(sampleValue(await scrape(), "skill_central_reloads_total", { result: "failed" })).toBe(1);
  });

  test("the JSON access log names the route, the caller's token label, the session and the skill; no token anywhere", async () => {
    await client.getPrompt({ name: "greet", arguments: { who: "log" } });
    await tool("load_skill", { name: "greet" });
    await client.request({ method: "skills/get", params: { uri: "skill://folder-skill/SKILL.md" } }, ANY);
    const mcp = served.records.filter((r) => r.route === "/mcp" && r.rpc !== null);
    const get = mcp.findLast((r) => r.rpc === "prompts/get");
    expect(get).toMatchObject({ method: "POST", status: 200, caller: "alice", skill: "greet" });
    expect(get!.session).toMatch(/^[0-9a-f-]{8}$/);
    expect(new Date(get!.time).toISOString()).toBe(get!.time);
    expect(typeof get!.ms).toBe("number");
    expect(mcp.findLast((r) => r.rpc === "tools/call")).toMatchObject({ skill: "greet" });
    expect(mcp.findLast((r) => r.rpc === "skills/get")).toMatchObject({ skill: "folder-skill" });
    expect(served.records.filter((r) => r.route === "/metrics").length).toBeGreaterThan(0);
    for (const r of served.records)
      expect(Object.keys(r).sort()).toEqual(
        ["caller", "method", "ms", "route", "rpc", "session", "skill", "status", "time"].sort(),
      );
    const everything = JSON.stringify(served.records) + served.lines.join("\n");
    expect(everything).not.toContain(METRICS_TOKEN);
    expect(everything).not.toContain(MCP_TOKEN);
  });
});

describe("/metrics without a metrics token file", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve();
  });
  afterAll(() => stop(served));

  test("is a 404, whatever token is presented", async () => {
    for (const headers of [{}, withToken(METRICS_TOKEN), withToken(MCP_TOKEN)]) {
      expect((await fetch(`${served.base}/metrics`, { headers })).status).toBe(404);
    }
  });
});
