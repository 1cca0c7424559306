import type { Client } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture, writeTokenFile } from "../helpers/fixture.ts";
import { connectHttp, startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { connect, type ServerTarget } from "../helpers/server.ts";
import { runCommand } from "./cli-run.ts";
import { CHANGE_TIMEOUT_MS, eventually, textOf } from "./live-session.ts";

/**
 * Issue 34's layer-access items whose symptom is on the wire (1, 3, 10), against the server
 * `target` runs (the source entry, or the compiled binary): a layer inside another layer's folder
 * is served as its own layer only; a listen stream hears of a change only in its caller's view;
 * `mcp --cwd` refuses a folder that is not there.
 */

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-fedcba9876543210xyz";
const prompt = (id: string, text: string) => `id: ${id}\ndescription: ${id} skill\ntype: prompt\nprompt: '${text}'\n`;

/** `security` lies inside `team`'s folder and is visible to alice only. */
const NESTED = {
  "skill-central.yaml": [
    "builtin: false",
    "layers:",
    "  - { name: team, path: skills, priority: 10 }",
    "  - { name: security, path: skills/security, priority: 40, visibleTo: { labels: [alice] } }",
    "",
  ].join("\n"),
  "skills/pub.yaml": prompt("pub", "public v1"),
  "skills/shared.yaml": prompt("shared", "team shared v1"),
  "skills/security/secret.yaml": prompt("secret", "secret v1"),
  "skills/security/shared.yaml": prompt("shared", "security shared v1"),
  "skills/security/kit/SKILL.md": "---\nname: kit\ndescription: A secret kit\n---\nSecret folder skill.\n",
};

/** Counts resources/updated per URI, and lets a test wait for one. */
class Updates {
  readonly seen: string[] = [];
  private waiters: { uri: string; count: number; resolve: () => void }[] = [];
  constructor(client: Client) {
    client.setNotificationHandler("notifications/resources/updated", async (n) => {
      this.seen.push(n.params.uri);
      const due = this.waiters.filter((w) => this.count(w.uri) >= w.count);
      this.waiters = this.waiters.filter((w) => !due.includes(w));
      for (const w of due) w.resolve();
    });
  }
  count(uri: string): number {
    return this.seen.filter((u) => u === uri).length;
  }
  /** Until `uri` was announced `count` times in all. */
  waitFor(uri: string, count = 1): Promise<void> {
    if (this.count(uri) >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no resources/updated for ${uri}: ${this.seen}`)),
        CHANGE_TIMEOUT_MS,
      );
      this.waiters.push({
        uri,
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
}

export function accessHardeningSuite(target: ServerTarget): void {
  describe(`layer access, round four (${target.name})`, () => {
    let fixture: Fixture | undefined;
    let server: HttpServer | undefined;
    const clients: Client[] = [];
    afterEach(async () => {
      await Promise.allSettled(clients.splice(0).map((c) => c.close()));
      await server?.stop();
      server = undefined;
      fixture?.cleanup();
      fixture = undefined;
    });

    const serve = async (files: Record<string, string>) => {
      fixture = makeFixture(files);
      const tokenFile = writeTokenFile(join(fixture.root, "tokens"), `alice ${ALICE}\nbob ${BOB}\n`);
      server = await startHttpServer({
        target,
        cwd: fixture.cwd,
        home: fixture.home,
        args: ["--token-file", tokenFile],
      });
      await eventually(async () => expect((await fetch(`${server!.base}/readyz`)).status).toBe(200));
      return server;
    };
    const open = async (token: string, era: "legacy" | "modern") => {
      const { client } = await connectHttp(server!.url, era, { Authorization: `Bearer ${token}` });
      clients.push(client);
      return client;
    };
    const names = async (client: Client) => (await client.listPrompts()).prompts.map((p) => p.name).sort();
    const uris = async (client: Client) => (await client.listResources()).resources.map((r) => r.uri).sort();

    test("1. a restricted layer inside another layer's folder is served only as itself: a caller outside it never gets its skills as the outer layer's", async () => {
      await serve(NESTED);
      for (const era of ["legacy", "modern"] as const) {
        const bob = await open(BOB, era);
        expect(await names(bob)).toEqual(["pub", "shared", "skills:compose"]);
        expect(textOf(await bob.getPrompt({ name: "shared" }))).toBe("team shared v1");
        expect((await uris(bob)).filter((u) => /secret|kit/.test(u))).toEqual([]);
        await expect(bob.getPrompt({ name: "secret" })).rejects.toThrow();
        await expect(bob.readResource({ uri: "skill://kit/SKILL.md" })).rejects.toThrow();
        const alice = await open(ALICE, era);
        expect(await names(alice)).toEqual(["kit", "pub", "secret", "shared", "skills:compose"]);
        expect(textOf(await alice.getPrompt({ name: "shared" }))).toBe("security shared v1");
        const registry = JSON.parse(
          ((await alice.readResource({ uri: "skill-central://skills/secret" })).contents[0] as { text: string }).text,
        ) as { chain: { layer: string }[] };
        // Once, as "security": never a second copy in "team".
        expect(registry.chain.map((c) => c.layer)).toEqual(["security"]);
      }
    });

    test("1. two layers on one folder are refused, both: nothing of that folder is served to anyone, and the log names both", async () => {
      await serve({
        ...NESTED,
        "skill-central.yaml": [
          "builtin: false",
          "layers:",
          "  - { name: team, path: skills, priority: 10 }",
          "  - { name: security, path: ./skills/, priority: 40, visibleTo: { labels: [alice] } }",
          "",
        ].join("\n"),
      });
      const bob = await open(BOB, "legacy");
      expect(await names(bob)).toEqual(["skills:compose"]);
      expect(server!.stderr()).toContain(
        'error: layers "team" and "security" have the same folder (skills): a file belongs to exactly one layer, so neither is loaded',
      );
    });

    test("3. 2026-07-28 listen streams hear resources/updated only for what their caller's view holds, and only when that view changed", async () => {
      await serve(NESTED);
      const watched = ["skill://secret/SKILL.md", "skill://shared/SKILL.md", "skill://pub/SKILL.md"];
      const alice = await open(ALICE, "modern");
      const bob = await open(BOB, "modern");
      const heard = { alice: new Updates(alice), bob: new Updates(bob) };
      const streams = [
        await alice.listen({ resourceSubscriptions: watched }),
        await bob.listen({ resourceSubscriptions: watched }),
      ];
      const edit = (path: string, text: string) => writeFileSync(join(fixture!.cwd, path), text);
      try {
        // Hidden from bob: the secret skill, and the security copy that shadows his "shared".
        edit("skills/security/secret.yaml", prompt("secret", "secret v2, longer"));
        edit("skills/security/shared.yaml", prompt("shared", "security shared v2, longer"));
        await heard.alice.waitFor("skill://secret/SKILL.md");
        await heard.alice.waitFor("skill://shared/SKILL.md");
        // Seen by both; the team's "shared" is shadowed for alice, so only bob's view changes.
        edit("skills/shared.yaml", prompt("shared", "team shared v2, longer"));
        await heard.bob.waitFor("skill://shared/SKILL.md");
        edit("skills/pub.yaml", prompt("pub", "public v2, longer"));
        await heard.bob.waitFor("skill://pub/SKILL.md");
        await heard.alice.waitFor("skill://pub/SKILL.md");
        // A stream's notifications arrive in order: had the hidden edits reached bob, they would be here.
        expect(heard.bob.seen).toEqual(["skill://shared/SKILL.md", "skill://pub/SKILL.md"]);
        expect(heard.alice.seen.sort()).toEqual([
          "skill://pub/SKILL.md",
          "skill://secret/SKILL.md",
          "skill://shared/SKILL.md",
        ]);
      } finally {
        await Promise.allSettled(streams.map((s) => s.close()));
      }
    });

    test("10. mcp --cwd with a folder that does not exist refuses with exit 2 and list --cwd's message", async () => {
      fixture = makeFixture({});
      const env = { HOME: fixture.home, PATH: process.env.PATH ?? "" };
      const run = (command: string) =>
        runCommand([target.command, ...target.args.slice(0, -1), command, "--cwd", "no/such/dir"], fixture!.cwd, env);
      const [mcp, list] = await Promise.all([run("mcp"), run("list")]);
      expect(mcp).toEqual({
        code: 2,
        stdout: "",
        stderr: 'skill-central mcp: error: --cwd: "no/such/dir" is not a folder\n',
      });
      expect(list.stderr).toBe('skill-central list: error: --cwd: "no/such/dir" is not a folder\n');
    });

    test("1. over stdio the local user sees the nested layer once, as itself", async () => {
      fixture = makeFixture(NESTED);
      const session = await connect(target, fixture.cwd, fixture.home);
      try {
        expect(await names(session.client)).toEqual(["kit", "pub", "secret", "shared", "skills:compose"]);
        expect(textOf(await session.client.getPrompt({ name: "shared" }))).toBe("security shared v1");
      } finally {
        await session.close();
      }
    });
  });
}
