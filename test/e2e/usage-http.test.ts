import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { readUsage } from "../../src/storage/usage-store.ts";
import { type Fixture, makeFixture, writeTokenFile } from "../helpers/fixture.ts";
import { connectHttp, type HttpServer, startHttpServer } from "../helpers/http-server.ts";
import { SOURCE_TARGET } from "../helpers/server.ts";

/**
 * The usage history over `mcp --http` (issue 35): uses go to the same store as stdio's, each
 * with who signed in, from a 2025-11-25 session and from a 2026-07-28 (stateless) request alike,
 * and the stop flushes them.
 */

const SKILLS: Record<string, string> = {
  ".skills/standup.yaml":
    'id: standup\ndescription: Draft the daily standup note from what changed yesterday\ntype: prompt\nprompt: "Standup for {{team}}"\narguments: [{ name: team }]\n',
  ".skills/shout.yaml":
    "id: shout\ndescription: Repeat a line in capitals, to test tool calls end to end\ntype: tool\ninputSchema: { type: object, properties: { line: { type: string } } }\nprompt: 'shout: {{line}}'\n",
};

const ALICE = "alice-token-0123456789abcdef0123456789";
const BOB = "bob-token-0123456789abcdef0123456789ab";

const storePath = (f: Fixture) => join(f.home, ".local", "state", "skill-central", "usage.db");

interface Row {
  skill: string;
  via: string;
  client: string | null;
  caller: string | null;
  outcome: string;
}

function rows(f: Fixture): Row[] {
  const db = new Database(storePath(f), { readonly: true });
  try {
    return db.query<Row, []>("SELECT skill, via, client, caller, outcome FROM uses ORDER BY caller, via, skill").all();
  } finally {
    db.close();
  }
}

let fixture: Fixture | undefined;
let server: HttpServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await server?.stop();
  server = undefined;
  fixture?.cleanup();
  fixture = undefined;
});

async function serve(f: Fixture, args: string[] = []): Promise<HttpServer> {
  server = await startHttpServer({
    target: SOURCE_TARGET,
    cwd: f.cwd,
    home: f.home,
    args: ["--no-builtin", "--no-watch", ...args],
  });
  return server;
}

async function open(url: string, era: "legacy" | "modern", headers: Record<string, string> = {}): Promise<Client> {
  const { client } = await connectHttp(url, era, headers, { name: `${era}-client` });
  clients.push(client);
  return client;
}

describe("usage history over mcp --http", () => {
  test("uses are recorded with the token's label as the caller, from sessions and 2026-07-28 requests", async () => {
    fixture = makeFixture(SKILLS);
    const tokens = writeTokenFile(join(fixture.root, "tokens"), `alice ${ALICE}\nbob ${BOB}\n`);
    const { url } = await serve(fixture, ["--token-file", tokens]);

    const alice = await open(url, "legacy", { Authorization: `Bearer ${ALICE}` });
    expect((await alice.getPrompt({ name: "standup", arguments: { team: "infra" } })).messages.length).toBeGreaterThan(
      0,
    );
    expect((await alice.callTool({ name: "shout", arguments: { line: "hi" } })).isError).toBeFalsy();
    const bob = await open(url, "modern", { Authorization: `Bearer ${BOB}` });
    expect((await bob.callTool({ name: "shout", arguments: { line: "hi" } })).isError).toBeFalsy();
    for (const client of clients.splice(0)) await client.close();
    expect(await server!.stop()).toBe(0);

    const usage = Object.fromEntries(
      (await readUsage(storePath(fixture), { since: 0 })).skills.map((u) => [u.skill, u]),
    );
    expect(usage.standup).toMatchObject({ uses: 1, clients: { "legacy-client": 1 }, outcomes: { ok: 1 } });
    expect(usage.shout).toMatchObject({ uses: 2, clients: { "legacy-client": 1, "modern-client": 1 } });
    expect(rows(fixture)).toEqual([
      { skill: "standup", via: "prompts/get", client: "legacy-client", caller: "alice", outcome: "ok" },
      { skill: "shout", via: "tools/call", client: "legacy-client", caller: "alice", outcome: "ok" },
      { skill: "shout", via: "tools/call", client: "modern-client", caller: "bob", outcome: "ok" },
    ]);
    // Never the token itself.
    const bytes = await Bun.file(storePath(fixture)).text();
    expect(bytes.includes(ALICE) || bytes.includes(BOB)).toBe(false);
  });

  test("without authentication a use has no caller; with `usage: off` nothing is recorded", async () => {
    fixture = makeFixture(SKILLS);
    const { url } = await serve(fixture);
    const client = await open(url, "legacy");
    await client.getPrompt({ name: "standup" });
    await client.close();
    clients.length = 0;
    expect(await server!.stop()).toBe(0);
    expect(rows(fixture)).toEqual([
      { skill: "standup", via: "prompts/get", client: "legacy-client", caller: null, outcome: "ok" },
    ]);
    fixture.cleanup();

    fixture = makeFixture({ ...SKILLS, "~/.skill-central/config.yaml": "usage: off\n" });
    const off = await serve(fixture);
    const quiet = await open(off.url, "modern");
    await quiet.getPrompt({ name: "standup" });
    await quiet.close();
    clients.length = 0;
    expect(await server!.stop()).toBe(0);
    expect(existsSync(storePath(fixture))).toBe(false);
  });
});
