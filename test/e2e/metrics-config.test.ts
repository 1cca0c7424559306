import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeFixture, type Fixture, writeTokenFile } from "../helpers/fixture.ts";
import { connectHttp, startHttpServer } from "../helpers/http-server.ts";
import { parseExposition, sampleValue } from "../helpers/prometheus.ts";
import { SOURCE_TARGET } from "../helpers/server.ts";

/**
 * `/metrics` as an operator turns it on: `http.metrics.tokenFile` in the config of a real
 * `mcp --http` process (docs/metrics.md), scraped as Prometheus scrapes it.
 */
const METRICS_TOKEN = "metrics-scrape-0123456789abcdef";
const MCP_TOKEN = "alice-mcp-token-0123456789abcdef";
let fixture: Fixture;

beforeAll(() => {
  fixture = makeFixture({
    "skill-central.yaml": "builtin: false\nhttp:\n  metrics:\n    tokenFile: ./metrics-token\n",
    ".skills/greet.yaml": "id: greet\ndescription: Greets\ntype: prompt\nprompt: 'Hello'\n",
  });
  writeTokenFile(join(fixture.cwd, "metrics-token"), `${METRICS_TOKEN}\n`);
  writeTokenFile(join(fixture.cwd, "tokens"), `alice ${MCP_TOKEN}\n`);
});
afterAll(() => fixture?.cleanup());

const scrape = (base: string, token: string) =>
  fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${token}` } });

describe("/metrics from the config file", () => {
  test("its token scrapes; an MCP token does not; a prompts/get moves the skill's use count by one", async () => {
    const server = await startHttpServer({
      target: SOURCE_TARGET,
      cwd: fixture.cwd,
      home: fixture.home,
      args: ["--token-file", "tokens"],
    });
    try {
      expect((await scrape(server.base, MCP_TOKEN)).status).toBe(401);
      const uses = async () => {
        const response = await scrape(server.base, METRICS_TOKEN);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toContain("text/plain");
        const samples = parseExposition(await response.text());
        return sampleValue(samples, "skill_central_skill_uses_total", { skill: "greet", via: "prompts/get" });
      };
      const before = await uses();
      const { client } = await connectHttp(server.url, "legacy", { Authorization: `Bearer ${MCP_TOKEN}` });
      await client.getPrompt({ name: "greet" });
      await client.close();
      expect(await uses()).toBe(before + 1);
      expect(server.stderr()).not.toContain(METRICS_TOKEN);
    } finally {
      await server.stop();
    }
  });

  test("a metrics token file that cannot be read stops the start, naming the file", async () => {
    const broken = makeFixture({ "skill-central.yaml": "http:\n  metrics:\n    tokenFile: ./missing-token\n" });
    try {
      await expect(startHttpServer({ target: SOURCE_TARGET, cwd: broken.cwd, home: broken.home })).rejects.toThrow(
        /missing-token/,
      );
    } finally {
      broken.cleanup();
    }
  });
});
