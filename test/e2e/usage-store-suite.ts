import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { MAX_RECORDED_CHARS } from "../../src/storage/usage-bounds.ts";
import { readUsage } from "../../src/storage/usage-store.ts";
import { openUsageDatabase } from "../../src/storage/usage-sqlite.ts";
import { folderProject } from "../../src/storage/project-identity.ts";
import { DAMAGE } from "../helpers/damaged-store.ts";
import { type Fixture, makeFixture } from "../helpers/fixture.ts";
import { connectHttp, type HttpServer, startHttpServer } from "../helpers/http-server.ts";
import { openSession, type JsonRpcSession } from "../helpers/jsonrpc-session.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { eventually } from "./live-session.ts";

/**
 * Issue 46's usage-store items against the server `target` runs (the source entry, or the
 * compiled binary): every string a use records is bounded before it is queued (a 3 MB client
 * name included), the store is the user's alone (0600 files in a 0700 folder; a project's config
 * may neither move nor prune it), and a damaged store never stops the server nor is changed by it.
 */

const SKILLS: Record<string, string> = {
  ".skills/echo.yaml":
    "id: echo\ndescription: Echo a message back as the tool result for testing\ntype: tool\ninputSchema: { type: object, properties: { message: { type: string } } }\nprompt: 'echo: {{message}}'\n",
};

const stateFolder = (f: Fixture) => join(f.home, ".local", "state", "skill-central");
const storePath = (f: Fixture) => join(stateFolder(f), "usage.db");
const mode = (path: string) => statSync(path).mode & 0o777;
/** A client name of 3 MB, as a hostile or broken client might send with every request. */
const HUGE_NAME = `huge-${"n".repeat(3 * 1024 * 1024)}`;
const BOUNDED_NAME = `${HUGE_NAME.slice(0, MAX_RECORDED_CHARS - 1)}…`;
/** How long a test waits for the server's batch to reach the file: a bound on a failure, not a verdict. */
const ROW_DEADLINE_MS = 30_000;

function clients(f: Fixture): string[] {
  const db = new Database(storePath(f), { readonly: true });
  try {
    return db
      .query<{ client: string }, []>("SELECT client FROM uses")
      .all()
      .map((r) => r.client);
  } finally {
    db.close();
  }
}

/** Bytes the store takes on disk, its WAL included. */
const storeBytes = (f: Fixture) =>
  ["", "-wal"].reduce((sum, suffix) => {
    const file = `${storePath(f)}${suffix}`;
    return sum + (existsSync(file) ? statSync(file).size : 0);
  }, 0);

export function usageStoreSuite(target: ServerTarget): void {
  let fixture: Fixture | undefined;
  let session: JsonRpcSession | undefined;
  let http: HttpServer | undefined;
  const httpClients: Client[] = [];
  afterEach(async () => {
    session?.kill();
    session = undefined;
    for (const client of httpClients.splice(0)) await client.close().catch(() => {});
    await http?.stop();
    http = undefined;
    fixture?.cleanup();
    fixture = undefined;
  });

  /** A stdio server in the fixture, initialized as `clientName`. */
  async function stdio(f: Fixture, clientName = "claude-code"): Promise<JsonRpcSession> {
    session = openSession([target.command, ...target.args, "--no-builtin", "--no-watch"], {
      cwd: f.cwd,
      env: { HOME: f.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" },
      timeoutMs: 30_000,
    });
    const init = await session.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: clientName, version: "1.0.0" },
    });
    expect(init.error).toBeUndefined();
    session.notify("notifications/initialized");
    return session;
  }

  const echo = async (s: JsonRpcSession, message = "x") => {
    const answer = await s.request("tools/call", { name: "echo", arguments: { message } });
    expect(answer.error).toBeUndefined();
    expect(answer.result?.isError).toBeUndefined();
  };

  describe(`the usage store (${target.name})`, () => {
    test("once a real server recorded a use, the store and its -wal and -shm files are 0600 in a 0700 folder", async () => {
      fixture = makeFixture(SKILLS);
      const s = await stdio(fixture);
      await echo(s);
      // Wait for the server's batch to reach the file (its event), then look while it still runs.
      await eventually(
        async () => expect((await readUsage(storePath(fixture!), { since: 0 })).skills[0]?.uses).toBe(1),
        ROW_DEADLINE_MS,
      );
      const files = ["", "-wal", "-shm"].map((suffix) => `${storePath(fixture!)}${suffix}`);
      expect(files.map((file) => [file, mode(file)])).toEqual(files.map((file) => [file, 0o600]));
      // Every folder the server made for it is private too (the fixture's HOME had none of them).
      for (const folder of [stateFolder(fixture), dirname(stateFolder(fixture)), join(fixture.home, ".local")])
        expect([folder, mode(folder)]).toEqual([folder, 0o700]);
      expect(await s.close()).toBe(0);
      session = undefined;
    });

    test("a use records the project as a hash of its real path (never the path) and the digest served; a refused call is recorded as refused", async () => {
      fixture = makeFixture(SKILLS);
      const s = await stdio(fixture);
      await echo(s, "fine");
      const refused = await s.request("tools/call", { name: "echo", arguments: { message: 5 } });
      expect(refused.result?.isError).toBe(true);
      expect(await s.close()).toBe(0);
      session = undefined;
      const db = new Database(storePath(fixture), { readonly: true });
      try {
        const rows = db
          .query<{ project: string; digest: string; outcome: string }, []>(
            "SELECT project, digest, outcome FROM uses ORDER BY at",
          )
          .all();
        expect(rows.map((r) => r.outcome)).toEqual(["ok", "refused"]);
        for (const row of rows) {
          expect(row.project).toBe(folderProject(fixture.cwd));
          expect(row.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        }
      } finally {
        db.close();
      }
      // The folder's path is nowhere in the store's bytes.
      expect(readFileSync(storePath(fixture)).includes(Buffer.from(fixture.cwd))).toBe(false);
      const [use] = (await readUsage(storePath(fixture), { since: 0 })).skills;
      expect([use?.uses, use?.refused]).toEqual([1, 1]);
    });

    test("a 3 MB client name is stored cut to the bound, over stdio and in every 2026-07-28 request over HTTP", async () => {
      fixture = makeFixture(SKILLS);
      const s = await stdio(fixture, HUGE_NAME);
      for (let i = 0; i < 20; i++) await echo(s, `m${i}`);
      expect(await s.close()).toBe(0);
      session = undefined;

      http = await startHttpServer({
        target,
        cwd: fixture.cwd,
        home: fixture.home,
        args: ["--no-builtin", "--no-watch"],
      });
      const { client } = await connectHttp(http.url, "modern", {}, { name: HUGE_NAME });
      httpClients.push(client);
      for (let i = 0; i < 20; i++) {
        const result = await client.callTool({ name: "echo", arguments: { message: `h${i}` } });
        expect(result.isError).toBeFalsy();
      }
      await client.close();
      httpClients.length = 0;
      expect(await http.stop()).toBe(0);
      http = undefined;

      const stored = clients(fixture);
      expect(stored).toHaveLength(40);
      expect(new Set(stored)).toEqual(new Set([BOUNDED_NAME]));
      expect(BOUNDED_NAME.length).toBe(MAX_RECORDED_CHARS);
      // 40 rows of a bounded name: well under a megabyte, where whole names would be 120 MB.
      expect(storeBytes(fixture)).toBeLessThan(1024 * 1024);
    }, 120_000);

    for (const { kind, write: damage, reason } of DAMAGE) {
      test(`over ${kind}, the server answers every request, warns once, and leaves the file as it was`, async () => {
        fixture = makeFixture(SKILLS);
        damage(storePath(fixture));
        const before = readFileSync(storePath(fixture));
        const s = await stdio(fixture);
        for (let i = 0; i < 5; i++) await echo(s, `m${i}`);
        expect(await s.close()).toBe(0);
        const warnings = s
          .stderr()
          .split("\n")
          .filter((line) => line.includes("usage:"));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(storePath(fixture));
        expect(warnings[0]).toContain(reason);
        session = undefined;
        expect(readFileSync(storePath(fixture)).equals(before)).toBe(true);
      });
    }

    test("a project's config neither moves nor prunes the user's store nor names a team store, and says so once per key", async () => {
      fixture = makeFixture({
        ...SKILLS,
        "skill-central.yaml":
          "usage: { store: ./elsewhere.db, keepDays: 1 }\nstore: postgres://attacker@evil.example/x\nlayers:\n  - { name: project, path: .skills, priority: 100 }\n",
      });
      // A use ten days ago, in the user's store: `keepDays: 1` from a project would delete it.
      const db = openUsageDatabase(storePath(fixture), 0);
      db.run(
        "INSERT INTO uses (at, skill, layer, client, caller, outcome, via) VALUES (?, 'echo', 'project', 'old-client', NULL, 'ok', 'tools/call')",
        [Date.now() - 10 * 86_400_000],
      );
      db.close();
      const s = await stdio(fixture);
      await echo(s);
      expect(await s.close()).toBe(0);
      session = undefined;
      expect(existsSync(join(fixture.cwd, "elsewhere.db"))).toBe(false);
      expect((await readUsage(storePath(fixture), { since: 0 })).skills[0]?.clients).toEqual({
        "old-client": 1,
        "claude-code": 1,
      });
      const said = s.stderr();
      for (const key of ["store", "keepDays"]) {
        const line = `skill-central.yaml:1:${key === "store" ? 10 : 33}: warning: usage.${key} is a user setting; ignored in a project's config`;
        expect({ said, count: said.split(line).length - 1 }).toEqual({ said, count: 1 });
      }
      // Nor may it send the user's uses to a database of its choosing.
      const store = "skill-central.yaml:2:1: warning: store is a user setting; ignored in a project's config";
      expect({ said, count: said.split(store).length - 1 }).toEqual({ said, count: 1 });
      expect(said).not.toContain("evil.example/x cannot");
    });
  });
}
