import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connectHttp, startHttpServer } from "../helpers/http-server.ts";
import { connect, SOURCE_TARGET, type Connected, type Era } from "../helpers/server.ts";
import { CHANGE_TIMEOUT_MS } from "./live-session.ts";

/**
 * `notifications/resources/updated` for the skill files a client subscribed to: through
 * `resources/subscribe` on a 2025-11-25 connection, through the `resourceSubscriptions` of a
 * `subscriptions/listen` stream on a 2026-07-28 one (the peer servers offer the former).
 */

const FILES: Record<string, string> = {
  "skill-central.yaml": "builtin: false\nlayers:\n  - { name: team, path: ./skills, priority: 10 }\n",
  "skills/kit/SKILL.md": "---\nname: kit\ndescription: A kit of files\n---\nUse the files.\n",
  "skills/kit/watched.md": "watched v1\n",
  "skills/kit/other.md": "other v1\n",
};
const WATCHED = "skill://kit/watched.md";
const OTHER = "skill://kit/other.md";

/** Counts resources/updated per URI and lets a test wait for one. */
class Updates {
  readonly seen: string[] = [];
  private waiters: { uri: string; resolve: () => void }[] = [];
  constructor(client: Client) {
    client.setNotificationHandler("notifications/resources/updated", async (n) => {
      this.seen.push(n.params.uri);
      for (const w of this.waiters) if (w.uri === n.params.uri) w.resolve();
      this.waiters = this.waiters.filter((w) => w.uri !== n.params.uri);
    });
  }
  waitFor(uri: string): Promise<void> {
    if (this.seen.includes(uri)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no resources/updated for ${uri}`)), CHANGE_TIMEOUT_MS);
      this.waiters.push({
        uri,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
}

describe("resource subscriptions", () => {
  let fixture: Fixture | undefined;
  let session: Connected | undefined;
  afterEach(async () => {
    await session?.close();
    fixture?.cleanup();
  });

  async function start(era: Era): Promise<{ client: Client; updates: Updates }> {
    fixture = makeFixture(FILES);
    session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, [], era);
    const updates = new Updates(session.client);
    // The digests a client subscribes after reading.
    await new SkillsClient(session.client).list();
    return { client: session.client, updates };
  }

  test("2025-11-25: resources/subscribe is declared; an edit to a subscribed file is announced, an unsubscribed one is not", async () => {
    const { client, updates } = await start("legacy");
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true });
    await client.subscribeResource({ uri: OTHER });
    await client.unsubscribeResource({ uri: OTHER });
    await client.subscribeResource({ uri: WATCHED });
    writeFileSync(join(fixture!.cwd, "skills/kit/other.md"), "other v2, longer\n");
    writeFileSync(join(fixture!.cwd, "skills/kit/watched.md"), "watched v2, longer\n");
    await updates.waitFor(WATCHED);
    expect(updates.seen).toEqual([WATCHED]);
  });

  test("over HTTP, both eras: a 2025-11-25 session's subscription and a 2026-07-28 listen stream's hear of the edit", async () => {
    fixture = makeFixture(FILES);
    const server = await startHttpServer({ target: SOURCE_TARGET, cwd: fixture.cwd, home: fixture.home });
    const clients: Client[] = [];
    try {
      const legacy = (await connectHttp(server.url, "legacy")).client;
      const modern = (await connectHttp(server.url, "modern")).client;
      clients.push(legacy, modern);
      const heard = [new Updates(legacy), new Updates(modern)];
      for (const client of clients) await new SkillsClient(client).list();
      await legacy.subscribeResource({ uri: WATCHED });
      const stream = await modern.listen({ resourceSubscriptions: [WATCHED] });
      writeFileSync(join(fixture.cwd, "skills/kit/other.md"), "other v2, longer\n");
      writeFileSync(join(fixture.cwd, "skills/kit/watched.md"), "watched v2, longer\n");
      for (const updates of heard) await updates.waitFor(WATCHED);
      for (const updates of heard) expect(updates.seen).toEqual([WATCHED]);
      await stream.close();
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      await server.stop();
    }
  });

  test("2026-07-28: a listen stream's resourceSubscriptions hear of an edit to those files only", async () => {
    const { client, updates } = await start("modern");
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true });
    const stream = await client.listen({ resourceSubscriptions: [WATCHED] });
    writeFileSync(join(fixture!.cwd, "skills/kit/other.md"), "other v2, longer\n");
    writeFileSync(join(fixture!.cwd, "skills/kit/watched.md"), "watched v2, longer\n");
    await updates.waitFor(WATCHED);
    expect(updates.seen).toEqual([WATCHED]);
    await stream.close();
  });
});
