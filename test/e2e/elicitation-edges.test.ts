import { StreamableHTTPClientTransport, type Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { INITIALIZE, postJson, startHttpServer } from "../helpers/http-server.ts";
import { initializeLine, rawSession, requestLine, SOURCE_TARGET, wireError } from "../helpers/server.ts";
import { askingClient, ELICITATION_FILES, ScriptedUser } from "./elicitation-suite.ts";

const STDIO_ENV = (fixture: Fixture) => ({ HOME: fixture.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" });

async function stdioClient(
  fixture: Fixture,
  era: "legacy" | "modern",
  user: ScriptedUser | undefined,
  args: string[] = [],
) {
  const client = askingClient(era, user);
  await client.connect(
    new StdioClientTransport({
      command: SOURCE_TARGET.command,
      args: [...SOURCE_TARGET.args, ...args],
      cwd: fixture.cwd,
      env: STDIO_ENV(fixture),
      stderr: "pipe",
    }),
  );
  return client;
}

async function httpClient(url: string, era: "legacy" | "modern", user: ScriptedUser | undefined): Promise<Client> {
  const client = askingClient(era, user);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

interface InputRequired {
  resultType: string;
  inputRequests: Record<string, { method: string; params: { requestedSchema: { properties: object } } }>;
  requestState: string;
}

/** The first round of a 2026-07-28 `prompts/get`, handed back instead of fulfilled. */
async function firstRound(client: Client, name: string, args: Record<string, string> = {}): Promise<InputRequired> {
  return (await client.request(
    { method: "prompts/get", params: { name, arguments: args } },
    { allowInputRequired: true },
  )) as unknown as InputRequired;
}

function retry(client: Client, name: string, requestState: string, content: Record<string, string>) {
  return client.request({
    method: "prompts/get",
    params: {
      name,
      arguments: {},
      requestState,
      inputResponses: { arguments: { action: "accept", content } },
    } as never,
  });
}

const MISSING = [
  requestLine(2, "prompts/get", { name: "review", arguments: {} }),
  requestLine(3, "tools/call", { name: "commit", arguments: { type: "feat" } }),
  requestLine(4, "tools/call", { name: "batch", arguments: {} }),
];
const initializeWith = (capabilities: object) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "raw", version: "0" } },
  });

describe("asking for missing arguments: who is not asked, and what is refused", () => {
  let fixture: Fixture;
  beforeAll(() => {
    fixture = makeFixture(ELICITATION_FILES);
  });
  afterAll(() => fixture?.cleanup());

  test("a client without the capability gets today's answers byte for byte over stdio (the same as with asking off)", async () => {
    const lines = [
      initializeLine(1),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      ...MISSING,
    ];
    const withoutCapability = await rawSession(SOURCE_TARGET, fixture.cwd, fixture.home, lines, 4);
    const off = await rawSession(
      { ...SOURCE_TARGET, args: [...SOURCE_TARGET.args, "--elicitation", "off"] },
      fixture.cwd,
      fixture.home,
      [initializeWith({ elicitation: {} }), ...lines.slice(1)],
      4,
    );
    expect(withoutCapability.stdout.slice(1)).toEqual(off.stdout.slice(1));
    // Exactly what the server answered before asking existed, in its order (a prompt's answer takes one more turn).
    expect(withoutCapability.stdout.slice(1)).toEqual([
      '{"result":{"content":[{"type":"text","text":"Missing required argument: \\"summary\\""}],"isError":true},"jsonrpc":"2.0","id":3}',
      '{"result":{"content":[{"type":"text","text":"Missing required argument: \\"items\\""}],"isError":true},"jsonrpc":"2.0","id":4}',
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Missing required argument: \\"focus\\""}}',
    ]);
  });

  test("over an HTTP session a client without the capability still gets plain JSON answers, unchanged", async () => {
    const http = await startHttpServer({ target: SOURCE_TARGET, cwd: fixture.cwd, home: fixture.home });
    try {
      const opened = await postJson(http.url, INITIALIZE);
      const session = opened.headers.get("mcp-session-id")!;
      const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
      await postJson(http.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
      const answer = await postJson(http.url, JSON.parse(MISSING[1]!), headers);
      expect(answer.headers.get("content-type")).toBe("application/json");
      expect(await answer.text()).toBe(
        '{"result":{"content":[{"type":"text","text":"Missing required argument: \\"summary\\""}],"isError":true},"jsonrpc":"2.0","id":3}',
      );
    } finally {
      await http.stop();
    }
  });

  test("asking off (--elicitation off, or elicitation: off in the config): a client with the capability is never asked", async () => {
    const user = new ScriptedUser().answers({ action: "accept", content: { focus: "style" } });
    const flagged = await stdioClient(fixture, "legacy", user, ["--elicitation", "off"]);
    try {
      expect((await wireError(flagged.getPrompt({ name: "review", arguments: {} }))).message).toBe(
        'Missing required argument: "focus"',
      );
    } finally {
      await flagged.close();
    }
    const configured = makeFixture({ ...ELICITATION_FILES, "skill-central.yaml": "elicitation: off\n" });
    const client = await stdioClient(configured, "modern", user);
    try {
      const result = await client.callTool({ name: "commit", arguments: { type: "fix" } });
      expect(result.isError).toBe(true);
      expect(user.asked).toHaveLength(0);
    } finally {
      await client.close();
      configured.cleanup();
    }
  });

  test("a 2025-11-25 client over stateless HTTP cannot be asked: today's answer", async () => {
    const http = await startHttpServer({
      target: SOURCE_TARGET,
      cwd: fixture.cwd,
      home: fixture.home,
      args: ["--stateless"],
    });
    const user = new ScriptedUser().answers({ action: "accept", content: { focus: "style" } });
    const client = await httpClient(http.url, "legacy", user);
    try {
      const error = await wireError(client.getPrompt({ name: "review", arguments: {} }));
      expect(error).toEqual({ code: -32602, message: 'Missing required argument: "focus"' });
      expect(user.asked).toHaveLength(0);
    } finally {
      await client.close();
      await http.stop();
    }
  });

  test("2026-07-28: a tampered requestState, or one minted for another prompt, is refused with -32602", async () => {
    const user = new ScriptedUser();
    const client = await stdioClient(fixture, "modern", user);
    try {
      const round = await firstRound(client, "review");
      expect(round.resultType).toBe("input_required");
      expect(Object.keys(round.inputRequests)).toEqual(["arguments"]);
      const tampered = `${round.requestState.slice(0, -2)}${round.requestState.endsWith("AA") ? "AB" : "AA"}`;
      for (const [name, state] of [
        ["review", tampered],
        ["skills:compose", round.requestState],
        ["review", "not a state"],
      ] as const) {
        expect(await wireError(retry(client, name, state, { focus: "style", tags: "quality" }))).toEqual({
          code: -32602,
          message: "Invalid or expired requestState",
        });
      }
      const answered = (await retry(client, "review", round.requestState, { focus: "style" })) as {
        messages: { content: { text: string } }[];
      };
      expect(answered.messages[0]!.content.text).toBe("Review for style.");
    } finally {
      await client.close();
    }
  });

  test("run_skill_tool asks for the missing arguments of the tool skill it runs", async () => {
    const user = new ScriptedUser().answers({ action: "accept", content: { summary: "through the catalog" } });
    const catalog = makeFixture({ ...ELICITATION_FILES, "skill-central.yaml": "toolSkills: catalog\n" });
    const client = await stdioClient(catalog, "legacy", user);
    try {
      const result = await client.callTool({
        name: "run_skill_tool",
        arguments: { name: "commit", arguments: { type: "feat" } },
      });
      expect(result.structuredContent).toEqual({ name: "commit", text: "feat: through the catalog" });
      expect(Object.keys(user.asked[0]!.requestedSchema.properties)).toEqual(["summary"]);
    } finally {
      await client.close();
      catalog.cleanup();
    }
  });

  test("stateless replicas sharing stateKeyFile take a retry that lands on the other one; without it, it is refused", async () => {
    const shared = makeFixture({
      ...ELICITATION_FILES,
      "state.key": randomBytes(32).toString("hex"),
      "skill-central.yaml": "elicitation: { mode: auto, stateKeyFile: ./state.key }\n",
    });
    const servers = await Promise.all([
      startHttpServer({ target: SOURCE_TARGET, cwd: shared.cwd, home: shared.home, args: ["--stateless"] }),
      startHttpServer({ target: SOURCE_TARGET, cwd: shared.cwd, home: shared.home, args: ["--stateless"] }),
      startHttpServer({ target: SOURCE_TARGET, cwd: fixture.cwd, home: fixture.home, args: ["--stateless"] }),
    ]);
    const user = new ScriptedUser();
    const [a, b, other] = await Promise.all(servers.map((s) => httpClient(s.url, "modern", user)));
    try {
      const round = await firstRound(a!, "review");
      const answered = (await retry(b!, "review", round.requestState, { focus: "security" })) as {
        messages: { content: { text: string } }[];
      };
      expect(answered.messages[0]!.content.text).toBe("Review for security.");
      expect(await wireError(retry(other!, "review", round.requestState, { focus: "security" }))).toEqual({
        code: -32602,
        message: "Invalid or expired requestState",
      });
    } finally {
      await Promise.all([a, b, other].map((c) => c?.close()));
      await Promise.all(servers.map((s) => s.stop()));
      shared.cleanup();
    }
  });
});
