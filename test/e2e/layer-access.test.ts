import { freePort } from "../helpers/free-port.ts";
import type { Client, StandardSchemaV1 } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeFixture, type Fixture, writeTokenFile } from "../helpers/fixture.ts";
import { connectHttp, INITIALIZE, postJson, startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { ALPHA_CLIENT, BETA_CLIENT, clientCredentials, JWT_CLIENT, startProvider } from "../helpers/oauth.ts";
import { connect, type Era, SOURCE_TARGET } from "../helpers/server.ts";
import { eventually, textOf } from "./live-session.ts";

/**
 * Per-layer access (docs/layer-access.md), end to end: the real server over HTTP with a token file
 * of two labels, two layers visible to one label each, and an id of the shared layer shadowed by
 * a restricted one. Each caller sees exactly its own through every surface, in both eras and
 * under --stateless; stdio sees everything.
 */

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-fedcba9876543210xyz";

const prompt = (id: string, tags: string[], text: string) =>
  `id: ${id}\ndescription: ${id} skill\ntype: prompt\ntags: [${tags.join(", ")}]\nprompt: '${text}'\n`;
const tool = (id: string) =>
  `id: ${id}\ndescription: ${id} skill\ntype: tool\ninputSchema: { type: object }\nprompt: '${id} ran'\n`;

const FILES = {
  "skill-central.yaml": [
    "builtin: false",
    "catalog: on",
    "toolCap: 3",
    "layers:",
    "  - { name: team, path: team, priority: 10 }",
    "  - { name: alpha, path: alpha, priority: 50, visibleTo: { claims: { groups: [alpha] }, labels: [alice] } }",
    "  - { name: beta, path: beta, priority: 50, visibleTo: { claims: { groups: [beta] }, labels: [bob] } }",
    "",
  ].join("\n"),
  "team/shared.yaml": prompt("shared", ["ops"], "team version"),
  "team/common.yaml": prompt("common", ["ops"], "common text"),
  "team/team-tool.yaml": tool("team-tool"),
  "alpha/shared.yaml": prompt("shared", ["ops"], "alpha version"),
  "alpha/alpha-notes.yaml": prompt("alpha-notes", ["ops", "alpha-only"], "alpha notes"),
  "alpha/alpha-tool.yaml": tool("alpha-tool"),
  "beta/beta-notes.yaml": prompt("beta-notes", ["ops", "beta-only"], "beta notes"),
  "beta/beta-tool.yaml": tool("beta-tool"),
};

type Layer = "alpha" | "beta";
type Wire = Record<string, unknown>;

const ANY: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value }) },
};
const raw = async (client: Client, method: string, params: Record<string, unknown>) =>
  (await client.request({ method, params }, ANY)) as Wire;

/** Whether a request is answered with something other than an error (a JSON-RPC error or a tool's isError). */
async function reaches(promise: Promise<unknown>): Promise<boolean> {
  try {
    const result = (await promise) as { isError?: boolean };
    return result.isError !== true;
  } catch {
    return false;
  }
}

const readText = async (client: Client, uri: string) =>
  ((await client.readResource({ uri })).contents[0] as { text: string }).text;

const complete = async (client: Client, ref: Wire, name: string) =>
  (await client.complete({ ref: ref as never, argument: { name, value: "" } })).completion.values;

const foundNames = async (client: Client, args: Wire) =>
  (
    (await client.callTool({ name: "find_skills", arguments: args })).structuredContent as {
      skills: { name: string }[];
    }
  ).skills
    .map((s) => s.name)
    .sort();

/** Everything a caller can learn of the skills, through every surface. */
async function seenBy(client: Client) {
  const registry = JSON.parse(await readText(client, "skill-central://registry")) as {
    chain: { layer: string }[];
  }[];
  const restricted = ["alpha-notes", "beta-notes"];
  return {
    prompts: (await client.listPrompts()).prompts.map((p) => p.name).sort(),
    tools: (await client.listTools()).tools.map((t) => t.name).sort(),
    shared: textOf(await client.getPrompt({ name: "shared" })),
    composed: [
      ...textOf(await client.getPrompt({ name: "skills:compose", arguments: { tags: "ops" } })).matchAll(
        /^## (\S+)$/gm,
      ),
    ]
      .map((m) => m[1])
      .sort(),
    skills: ((await raw(client, "skills/list", {})).skills as { uri: string }[]).map((s) => s.uri).sort(),
    resources: (await client.listResources()).resources.map((r) => r.uri).sort(),
    registryLayers: [...new Set(registry.flatMap((r) => r.chain.map((c) => c.layer)))].sort(),
    sharedChain: (
      JSON.parse(await readText(client, "skill-central://skills/shared")) as { chain: { layer: string }[] }
    ).chain.map((c) => c.layer),
    sharedSkillMd: (await readText(client, "skill://shared/SKILL.md")).includes("alpha version") ? "alpha" : "team",
    tags: await complete(client, { type: "ref/prompt", name: "skills:compose" }, "tags"),
    ids: await complete(client, { type: "ref/resource", uri: "skill-central://skills/{id}" }, "id"),
    found: await foundNames(client, { limit: 50 }),
    searched: await foundNames(client, { query: "notes" }),
    instructionsName: restricted.filter((id) => client.getInstructions()?.includes(id)),
    reaches: {
      "prompts/get": [
        await reaches(client.getPrompt({ name: "alpha-notes" })),
        await reaches(client.getPrompt({ name: "beta-notes" })),
      ],
      "tools/call": [
        await reaches(client.callTool({ name: "alpha-tool", arguments: {} })),
        await reaches(client.callTool({ name: "beta-tool", arguments: {} })),
      ],
      "skills/get": await Promise.all(
        restricted.map((id) => reaches(raw(client, "skills/get", { uri: `skill://${id}/SKILL.md` }))),
      ),
      "resources/read": await Promise.all(
        restricted.map((id) => reaches(client.readResource({ uri: `skill://${id}/SKILL.md` }))),
      ),
      load_skill: await Promise.all(
        restricted.map((name) => reaches(client.callTool({ name: "load_skill", arguments: { name } }))),
      ),
      "completion/complete": await Promise.all(
        restricted.map((name) =>
          reaches(client.complete({ ref: { type: "ref/prompt", name }, argument: { name: "x", value: "" } })),
        ),
      ),
    },
  };
}

/** What a caller who sees `layers` (besides the team's) must see. */
function expected(layers: readonly Layer[]) {
  const alpha = layers.includes("alpha");
  const beta = layers.includes("beta");
  const notes = [...(alpha ? ["alpha-notes"] : []), ...(beta ? ["beta-notes"] : [])];
  const tools = [...(alpha ? ["alpha-tool"] : []), ...(beta ? ["beta-tool"] : [])];
  const prompts = [...notes, "common", "shared"].sort();
  const ids = [...prompts, ...tools, "team-tool"].sort();
  const both = (a: boolean, b: boolean) => [a, b];
  return {
    prompts: [...prompts, "skills:compose"].sort(),
    tools: [...tools, "find_skills", "load_skill", "team-tool"].sort(),
    shared: alpha ? "alpha version" : "team version",
    composed: prompts,
    skills: prompts.map((id) => `skill://${id}/SKILL.md`),
    resources: [
      "skill-central://registry",
      ...ids.map((id) => `skill-central://skills/${id}`),
      ...prompts.map((id) => `skill://${id}/SKILL.md`),
    ].sort(),
    registryLayers: [...layers, "team"].sort(),
    sharedChain: alpha ? ["alpha", "team"] : ["team"],
    sharedSkillMd: alpha ? "alpha" : "team",
    tags: [...(alpha ? ["alpha-only"] : []), ...(beta ? ["beta-only"] : []), "ops"],
    ids,
    found: ids,
    searched: notes,
    instructionsName: notes,
    reaches: {
      "prompts/get": both(alpha, beta),
      "tools/call": both(alpha, beta),
      "skills/get": both(alpha, beta),
      "resources/read": both(alpha, beta),
      load_skill: both(alpha, beta),
      "completion/complete": both(alpha, beta),
    },
  };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

let fixture: Fixture;
let tokenFile: string;
let servers: HttpServer[] = [];
const clients: Client[] = [];
/** A server that has loaded its skills: so the instructions of an `initialize` can name them. */
const start = async (args: string[] = []) => {
  const server = await startHttpServer({ target: SOURCE_TARGET, cwd: fixture.cwd, home: fixture.home, args });
  servers.push(server);
  await eventually(async () => expect((await fetch(`${server.base}/readyz`)).status).toBe(200));
  return server;
};
const open = async (server: HttpServer, era: Era, token?: string, name?: string) => {
  const { client, transport } = await connectHttp(
    server.url,
    era,
    token === undefined ? {} : bearer(token),
    name === undefined ? undefined : { name },
  );
  clients.push(client);
  return { client, transport };
};

beforeAll(() => {
  fixture = makeFixture(FILES);
  tokenFile = writeTokenFile(join(fixture.root, "tokens"), `alice ${ALICE}\nbob ${BOB}\n`);
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});
afterAll(() => fixture?.cleanup());

describe("per-layer access over HTTP", () => {
  for (const stateless of [false, true]) {
    const mode = stateless ? "--stateless" : "sessions and 2026-07-28 requests";
    test(`each caller sees exactly its own layers through every surface, in both eras (${mode})`, async () => {
      const server = await start(["--token-file", tokenFile, ...(stateless ? ["--stateless"] : [])]);
      for (const era of ["legacy", "modern"] as const) {
        const alice = (await open(server, era, ALICE)).client;
        const bob = (await open(server, era, BOB)).client;
        expect({ era, ...(await seenBy(alice)) }).toEqual({ era, ...expected(["alpha"]) });
        expect({ era, ...(await seenBy(bob)) }).toEqual({ era, ...expected(["beta"]) });
      }
    });
  }

  test("run_skill_tool runs only the caller's tool skills (a capped client, whose tool skills are behind it)", async () => {
    const server = await start(["--token-file", tokenFile]);
    for (const era of ["legacy", "modern"] as const) {
      const alice = (await open(server, era, ALICE, "cursor-vscode")).client;
      expect((await alice.listTools()).tools.map((t) => t.name).sort()).toEqual([
        "find_skills",
        "load_skill",
        "run_skill_tool",
      ]);
      const run = (client: Client, name: string) => client.callTool({ name: "run_skill_tool", arguments: { name } });
      expect(textOf(await run(alice, "alpha-tool"))).toBe("alpha-tool ran");
      expect(await reaches(run(alice, "beta-tool"))).toBe(false);
      const bob = (await open(server, era, BOB, "cursor-vscode")).client;
      expect(textOf(await run(bob, "beta-tool"))).toBe("beta-tool ran");
      expect(await reaches(run(bob, "alpha-tool"))).toBe(false);
    }
  });

  test("lists are marked private for 2026-07-28 caches once a layer has visibleTo", async () => {
    const server = await start(["--token-file", tokenFile]);
    const { client } = await open(server, "modern", ALICE);
    for (const method of ["prompts/list", "resources/list", "resources/templates/list", "tools/list"]) {
      const result = await raw(client, method, {});
      expect({ method, cacheScope: result.cacheScope }).toEqual({ method, cacheScope: "private" });
    }
    const read = await raw(client, "resources/read", { uri: "skill-central://registry" });
    expect(read.cacheScope).toBe("private");
    const listed = await raw(client, "skills/list", {});
    expect(listed.cacheScope).toBe("private");
  });

  test("a session opened by alice is not usable by bob: its id is unknown to him (404)", async () => {
    const server = await start(["--token-file", tokenFile]);
    const { transport } = await open(server, "legacy", ALICE);
    const hijack = await postJson(
      server.url,
      { jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "alpha-notes" } },
      { ...bearer(BOB), "Mcp-Session-Id": transport.sessionId!, "MCP-Protocol-Version": "2025-11-25" },
    );
    expect(hijack.status).toBe(404);
    expect(await hijack.text()).not.toContain("alpha notes");
  });

  test("without authentication every HTTP caller is anonymous: restricted layers are hidden, and start-up says so once per layer", async () => {
    const server = await start();
    for (const era of ["legacy", "modern"] as const) {
      const { client } = await open(server, era);
      expect({ era, ...(await seenBy(client)) }).toEqual({ era, ...expected([]) });
    }
    const warning = (layer: string) =>
      `layer "${layer}" has visibleTo but the server has no authentication: nobody over HTTP sees it`;
    await eventually(() => expect(server.stderr()).toContain(warning("beta")));
    for (const layer of ["alpha", "beta"]) expect(server.stderr().split(warning(layer)).length).toBe(2);
    expect(server.stderr()).not.toContain('layer "team" has visibleTo');
  });

  test("an initialize without a token is refused when tokens are configured, whatever the layers", async () => {
    const server = await start(["--token-file", tokenFile]);
    expect((await postJson(server.url, INITIALIZE)).status).toBe(401);
  });
});

describe("per-layer access for callers signed in with an identity provider (claims)", () => {
  test("a groups claim in the access token decides the layers: each caller sees exactly its own, in both eras (sessions, 2026-07-28 requests, --stateless)", async () => {
    const provider = await startProvider();
    try {
      for (const stateless of [false, true]) {
        const port = freePort();
        const publicUrl = `http://127.0.0.1:${port}/mcp`;
        fixture.write(
          "~/.skill-central/config.yaml",
          `http:\n  publicUrl: ${publicUrl}\n  oauth: { issuer: "${provider.issuer}" }\n`,
        );
        const server = await start(["--port", String(port), ...(stateless ? ["--stateless"] : [])]);
        const alpha = await clientCredentials(provider.issuer, ALPHA_CLIENT, publicUrl);
        const beta = await clientCredentials(provider.issuer, BETA_CLIENT, publicUrl);
        const plain = await clientCredentials(provider.issuer, JWT_CLIENT, publicUrl);
        for (const era of ["legacy", "modern"] as const) {
          const label = { era, stateless };
          expect({ ...label, ...(await seenBy((await open(server, era, alpha)).client)) }).toEqual({
            ...label,
            ...expected(["alpha"]),
          });
          expect({ ...label, ...(await seenBy((await open(server, era, beta)).client)) }).toEqual({
            ...label,
            ...expected(["beta"]),
          });
          // Signed in, but in neither group: the team's layer only.
          expect({ ...label, ...(await seenBy((await open(server, era, plain)).client)) }).toEqual({
            ...label,
            ...expected([]),
          });
        }
        await Promise.allSettled(clients.splice(0).map((c) => c.close()));
        await Promise.all(servers.splice(0).map((s) => s.stop()));
      }
    } finally {
      fixture.remove("~/.skill-central/config.yaml");
      await provider.stop();
    }
  });
});

describe("per-layer access over stdio", () => {
  test("the local user sees every layer, as without visibleTo", async () => {
    for (const era of ["legacy", "modern"] as const) {
      const session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, [], era);
      try {
        // Over stdio, `initialize` is answered before the first load: its instructions name no skill yet.
        const { instructionsName: _, ...seen } = await seenBy(session.client);
        const { instructionsName: __, ...all } = expected(["alpha", "beta"]);
        expect({ era, ...seen }).toEqual({ era, ...all });
      } finally {
        await session.close();
      }
    }
  });
});
