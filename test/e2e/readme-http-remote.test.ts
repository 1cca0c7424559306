import { afterAll, beforeAll, expect, test } from "bun:test";
import { hostname } from "node:os";
import { join } from "node:path";
import { makeFixture, type Fixture, writeTokenFile } from "../helpers/fixture.ts";
import { startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { fencedBlocks, section } from "../helpers/markdown.ts";
import { rawRequest } from "../helpers/raw-http.ts";
import { REPO_ROOT, SOURCE_TARGET } from "../helpers/server.ts";

/**
 * The README's "Serving a team over HTTP" command, as given (a free port and a token file of the
 * test's own), serves a client on another machine that reaches it by the machine's address or
 * name: requests go to 127.0.0.1 with that Host header, so nothing leaves this machine.
 */
const TOKEN = "team-token-0123456789abcdef";
let fixture: Fixture;
let server: HttpServer;
let port: number;

function teamCommand(readme: string, tokens: string): string[] {
  const lines = fencedBlocks(section(readme, "## Serving a team over HTTP"))
    .flatMap((b) => b.body.split("\n"))
    .filter((l) => l.startsWith("skill-central mcp --http"));
  expect(lines).toHaveLength(1);
  const args = lines[0]!.replace("skill-central mcp --http", "").trim().split(/\s+/);
  return args.map((arg, i) => (args[i - 1] === "--port" ? "0" : args[i - 1] === "--token-file" ? tokens : arg));
}

beforeAll(async () => {
  fixture = makeFixture({ ".skills/note.yaml": "id: note\ndescription: A note\ntype: prompt\nprompt: hi\n" });
  const tokens = writeTokenFile(join(fixture.cwd, "tokens"), `team ${TOKEN}\n`);
  const args = teamCommand(await Bun.file(join(REPO_ROOT, "README.md")).text(), tokens);
  expect(args).toContain("--token-file");
  server = await startHttpServer({ target: SOURCE_TARGET, cwd: fixture.cwd, home: fixture.home, args });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
  fixture?.cleanup();
});

test("the README's team server answers a client that reaches it by address or by name, with a token; 401 without", async () => {
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "elsewhere", version: "0" } },
  });
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  for (const host of [`10.1.2.3:${port}`, `${hostname()}:${port}`]) {
    const served = await rawRequest(
      port,
      host,
      "POST",
      "/mcp",
      { ...headers, Authorization: `Bearer ${TOKEN}` },
      initialize,
    );
    expect({ host, status: served.status }).toEqual({ host, status: 200 });
    expect(served.text).toContain('"serverInfo":{"name":"skill-central"');
    const refused = await rawRequest(port, host, "POST", "/mcp", headers, initialize);
    expect({ host, status: refused.status }).toEqual({ host, status: 401 });
  }
});
