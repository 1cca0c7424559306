import type { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { newClient, SOURCE_ENTRY } from "../helpers/server.ts";
import { eventually, ListChanges, textOf } from "./live-session.ts";

/**
 * A folder skill's supporting files are neither read nor hashed at start: their sizes and
 * digests are worked out when a client first needs them, and kept in the start-up index by
 * version. Whatever happens to the files before, during or after that, every byte served is
 * one of the digests the client was given for that URI, and the current digests follow the
 * disk after a reload (resources/list_changed).
 */

const SKILL = "---\nname: kit\ndescription: A kit of files\n---\nUse the files.\n";
const FILES: Record<string, string> = {
  "skill-central.yaml": "builtin: false\nlayers:\n  - { name: team, path: ./skills, priority: 10 }\n",
  "skills/kit/SKILL.md": SKILL,
  "skills/kit/edited.md": "edited v1\n",
  "skills/kit/replaced.md": "replaced v1\n",
  "skills/kit/removed.md": "removed\n",
  "skills/kit/nested/deep.txt": "deep v1\n",
};

const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** Old enough for the start-up index, which leaves out files changed in the last 2 s. */
function age(fixture: Fixture): void {
  const when = new Date(Date.now() - 60_000);
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full);
      utimesSync(full, when, when);
    }
  };
  walk(join(fixture.cwd, "skills"));
}

/** The four changes, each made as editors and tools make them. */
function change(fixture: Fixture, round: string): void {
  const kit = join(fixture.cwd, "skills/kit");
  // In place, same size: only the stamp's mtime (and the bytes) tell.
  writeFileSync(join(kit, "edited.md"), `edited ${round}\n`);
  // Atomically: a new file renamed over the old one.
  writeFileSync(join(kit, ".replaced.tmp"), `replaced ${round}, longer\n`);
  renameSync(join(kit, ".replaced.tmp"), join(kit, "replaced.md"));
  writeFileSync(join(kit, `added-${round}.md`), `added ${round}\n`);
  rmSync(join(kit, "removed.md"), { force: true });
}

/** How many digests the start-up index in the fixture's HOME holds. */
function indexedDigests(fixture: Fixture): number {
  const dir = join(fixture.home, ".cache", "skill-central");
  const file = readdirSync(dir).find((f) => f.endsWith(".index.sqlite"))!;
  const db = new Database(join(dir, file), { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM digests").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

interface Session {
  client: Client;
  skills: SkillsClient;
  changes: ListChanges;
  /** Every digest the client was given, by URI. */
  given: Map<string, Set<string>>;
  close(): Promise<void>;
}

async function open(fixture: Fixture): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SOURCE_ENTRY, "mcp"],
    cwd: fixture.cwd,
    env: { HOME: fixture.home, PATH: process.env.PATH ?? "", NO_COLOR: "1", SKILL_CENTRAL_CACHE: "on" },
    stderr: "ignore",
  });
  const client = newClient();
  const changes = new ListChanges(client);
  await client.connect(transport);
  return { client, skills: new SkillsClient(client), changes, given: new Map(), close: () => client.close() };
}

/** skills/list's files of the kit, each digest noted as given. */
async function listed(s: Session): Promise<Map<string, { digest: string; size: number }>> {
  const { skills } = await s.skills.list();
  const files = new Map<string, { digest: string; size: number }>();
  for (const r of skills[0]!.resources as { uri: string; digest: string; size: number }[]) {
    files.set(r.uri.replace("skill://kit/", ""), r);
    s.given.set(r.uri, new Set([...(s.given.get(r.uri) ?? []), r.digest]));
  }
  return files;
}

/** Reads every listed file: each answer is refused, or bytes of a digest given for that URI. Returns those served. */
async function readAll(s: Session, files: Map<string, unknown>): Promise<Map<string, Buffer>> {
  const served = new Map<string, Buffer>();
  for (const path of files.keys()) {
    const uri = `skill://kit/${path}`;
    let bytes: Buffer;
    try {
      const content = (await s.client.readResource({ uri })).contents[0] as { text?: string; blob?: string };
      bytes =
        content.blob !== undefined ? Buffer.from(content.blob, "base64") : Buffer.from(content.text ?? "", "utf8");
    } catch (error) {
      expect(String(error)).toMatch(/changed on disk since it was published|cannot be read/);
      continue;
    }
    expect(s.given.get(uri)).toContain(`sha256:${sha(bytes)}`);
    served.set(path, bytes);
  }
  return served;
}

/** The kit's files on disk now, as skills/list must publish them once the server caught up. */
function onDisk(fixture: Fixture): Map<string, string> {
  const kit = join(fixture.cwd, "skills/kit");
  const out = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(dir, e.name), r);
      else out.set(r, `sha256:${sha(readFileSync(join(dir, e.name)))}`);
    }
  };
  walk(kit, "");
  return out;
}

async function expectCurrent(s: Session, fixture: Fixture): Promise<void> {
  await eventually(async () => {
    const files = await listed(s);
    expect(new Map([...files].map(([p, f]) => [p, f.digest]))).toEqual(onDisk(fixture));
  });
  const files = await listed(s);
  const served = await readAll(s, files);
  expect([...served.keys()].sort()).toEqual([...files.keys()].sort());
}

describe("a folder skill's files: digests worked out on first use, always matching what is served", () => {
  let fixture: Fixture | undefined;
  let session: Session | undefined;
  afterEach(async () => {
    await session?.close();
    session = undefined;
    fixture?.cleanup();
    fixture = undefined;
  });

  test("before the first answer: edited, replaced, added and removed since the start-up index was written, a warm start publishes the files as they are now", async () => {
    fixture = makeFixture(FILES);
    age(fixture);
    session = await open(fixture);
    expect(textOf(await session.client.getPrompt({ name: "kit" }))).toBe("Use the files.\n");
    // The first process works the digests out (skills/list) and leaves them in its index at exit.
    expect([...(await listed(session)).keys()]).toEqual([
      "SKILL.md",
      "edited.md",
      "nested/deep.txt",
      "removed.md",
      "replaced.md",
    ]);
    await session.close();
    // …one row per file version, so the next start hashes none of the files that did not change.
    expect(indexedDigests(fixture)).toBe(5);
    change(fixture, "v2");
    session = await open(fixture);
    expect((await session.client.listPrompts()).prompts.map((p) => p.name)).toContain("kit");
    // The body, never held by the start, is read from SKILL.md (or the index) on use.
    expect(textOf(await session.client.getPrompt({ name: "kit" }))).toBe("Use the files.\n");
    await expectCurrent(session, fixture);
  });

  test("while the server starts: changed as it loads (wherever the load is then), what is served matches what is given, and skills/list catches up", async () => {
    fixture = makeFixture(FILES);
    age(fixture);
    // A warm index first, so the start has digests to (wrongly) trust if it did not check.
    session = await open(fixture);
    await listed(session);
    await session.close();
    const starting = open(fixture);
    change(fixture, "v2");
    session = await starting;
    await readAll(session, await listed(session));
    await expectCurrent(session, fixture);
  });

  test("during: changed after the first answer (prompts/list) but before any client asked for digests, skills/list publishes the new files", async () => {
    fixture = makeFixture(FILES);
    session = await open(fixture);
    expect((await session.client.listPrompts()).prompts.map((p) => p.name)).toContain("kit");
    change(fixture, "v2");
    // Whether the reload the change starts has happened yet or not, what is served matches what is given.
    await readAll(session, await listed(session));
    await expectCurrent(session, fixture);
  });

  test("after: changed once the digests were given, a file is refused or served as given, never otherwise; list_changed follows and the new digests match", async () => {
    fixture = makeFixture(FILES);
    session = await open(fixture);
    const first = await listed(session);
    expect((await readAll(session, first)).size).toBe(first.size);
    const before = session.changes.counts.resources;
    change(fixture, "v2");
    await readAll(session, first);
    await session.changes.waitFor("resources", before + 1);
    await expectCurrent(session, fixture);
    // And again, on files that are now known to the server.
    const again = session.changes.counts.resources;
    change(fixture, "v3");
    await readAll(session, await listed(session));
    await session.changes.waitFor("resources", again + 1);
    await expectCurrent(session, fixture);
  });
});
