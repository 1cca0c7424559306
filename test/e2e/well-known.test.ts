import { freePort } from "../helpers/free-port.ts";
import type { Client, StandardSchemaV1 } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { writeTarGz } from "../../src/storage/tar-gz.ts";
import { spawnNginx } from "../helpers/nginx.ts";
import { makeFixture, type Fixture, writeTokenFile } from "../helpers/fixture.ts";
import { connectHttp, startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { connect, REPO_ROOT, SOURCE_TARGET } from "../helpers/server.ts";
import { runCli } from "./cli-run.ts";

/**
 * Skills on the web, against real parts: `publish` writes the built-in and a fixture project's
 * skills; a real nginx serves the tree with docs/well-known.md's recipe; a second project takes it
 * in with `sync` and serves every skill byte for byte as the publisher does (the SDK's client over
 * stdio on both); the live index of a spawned `mcp --http` (with a token) is consumed too; and
 * hostile indexes are each refused, naming the skill and the reason, with nothing served.
 */
const SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
const TOKEN = "publisher-token-0123456789abcdef";
const sha = (bytes: Uint8Array) => `sha256:${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`;

function files(dir: string, rel = ""): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) for (const [p, b] of files(dir, path)) found.set(p, b);
    else found.set(path, readFileSync(join(dir, path)));
  }
  return found;
}

/** nginx (the Debian package) serving `root` with docs/well-known.md's server block, unprivileged. */
async function startNginx(root: string, prefix: string): Promise<{ port: number; proc: Subprocess }> {
  const doc = readFileSync(join(REPO_ROOT, "docs", "well-known.md"), "utf8");
  const block = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error("docs/well-known.md has no nginx block");
  const port = freePort();
  const site = block
    .replace(/listen 8080;/, `listen 127.0.0.1:${port};`)
    .replace(/root \/srv\/skills-site;/, `root ${root};`);
  const proc = spawnNginx(prefix, site);
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}/.well-known/agent-skills/index.json`).catch(() => undefined);
    if (ready?.status === 200) break;
    if (proc.exitCode !== null) throw new Error(`nginx did not start: ${await new Response(proc.stderr).text()}`);
    await Bun.sleep(25);
  }
  return { port, proc };
}

/** Any result: the SDK client has no schema for skills/list; the test checks it. */
const ANY: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value }) },
};

interface Wire {
  skills: { uri: string; frontmatter: { name: string }; resources: { uri: string; digest: string; size: number }[] }[];
}

async function listSkills(client: Client): Promise<Wire["skills"]> {
  const wire = (await client.request({ method: "skills/list", params: {} }, ANY)) as Wire;
  return wire.skills.map(({ uri, frontmatter, resources }) => ({
    uri,
    frontmatter: { name: frontmatter.name },
    resources,
  }));
}

async function readAll(client: Client, skills: Wire["skills"]): Promise<Record<string, unknown>> {
  const read: Record<string, unknown> = {};
  for (const skill of skills)
    for (const r of skill.resources) read[r.uri] = (await client.readResource({ uri: r.uri })).contents[0];
  return read;
}

function consumerConfig(url: string, extra = ""): string {
  return `builtin: false\nlayers:\n  - { name: vendor, priority: 30, url: "${url}"${extra} }\n`;
}

describe("the well-known index: publish, serve with nginx, consume", () => {
  let publisher: Fixture;
  let consumer: Fixture;
  let nginx: { port: number; proc: Subprocess } | undefined;
  let site: string;
  let base: string;

  beforeAll(async () => {
    publisher = makeFixture({
      ".skills/fixture-prompt.yaml":
        "id: fixture-prompt\ndescription: A YAML prompt, published as a synthesised SKILL.md\ntype: prompt\nversion: 2.1.0\nprompt: 'Hello {{who}}'\n",
      ".skills/folder-skill/SKILL.md":
        "---\nname: folder-skill\ndescription: A folder with files\n---\n\nRead ref/notes.md.\n",
      ".skills/folder-skill/ref/notes.md": "# Notes\n\nSome notes.\n",
      ".skills/folder-skill/scripts/run.sh": "#!/bin/sh\necho hi\n",
      ".skills/folder-skill/data/blob.bin": "\u0000\u0001\u0002binary",
    });
    site = join(publisher.root, "site");
    // nginx's workers run as another user when the test runs as root: the tree must be readable.
    chmodSync(publisher.root, 0o755);
    const published = await runCli(["publish", site, "--snapshot", "1.0.0"], publisher.cwd, publisher.home);
    expect(published.code).toBe(0);
    nginx = await startNginx(site, join(publisher.root, "nginx"));
    base = `http://127.0.0.1:${nginx.port}/.well-known/agent-skills/`;
    consumer = makeFixture({ "skill-central.yaml": consumerConfig(base) });
  }, 60_000);

  afterAll(async () => {
    if (nginx && nginx.proc.exitCode === null) {
      nginx.proc.kill("SIGQUIT");
      await nginx.proc.exited;
    }
    publisher?.cleanup();
    consumer?.cleanup();
  });

  test("publish writes a sorted index with $schema, relative URLs, digests of the files, and is byte-identical when run again", async () => {
    const root = join(site, ".well-known", "agent-skills");
    const index = JSON.parse(readFileSync(join(root, "index.json"), "utf8"));
    expect(index.$schema).toBe(SCHEMA);
    const names = index.skills.map((s: { name: string }) => s.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(["fixture-prompt", "folder-skill", "review-pr"]));
    for (const entry of index.skills) {
      expect(entry.url.startsWith("/") || entry.url.includes("://")).toBe(false);
      expect(sha(readFileSync(join(root, entry.url)))).toBe(entry.digest);
    }
    const folder = index.skills.find((s: { name: string }) => s.name === "folder-skill");
    expect(folder).toMatchObject({ type: "archive", url: "folder-skill.tar.gz", description: "A folder with files" });
    expect(index.skills.find((s: { name: string }) => s.name === "fixture-prompt")).toMatchObject({
      type: "skill-md",
      url: "fixture-prompt/SKILL.md",
      version: "2.1.0",
    });
    // Fixed modes, owners and times in the archive; the folder's files at its root.
    const listing = Bun.spawnSync(["tar", "tvzf", join(root, "folder-skill.tar.gz")]).stdout.toString();
    expect(listing).toContain("-rw-r--r-- 0/0");
    expect(listing).toContain("1970-01-01");
    expect(listing).toMatch(/ SKILL\.md\n/);
    const again = join(publisher.root, "site-again");
    expect((await runCli(["publish", again, "--snapshot", "1.0.0"], publisher.cwd, publisher.home)).code).toBe(0);
    expect(files(again)).toEqual(files(site));
    // The snapshot is never overwritten.
    const refused = await runCli(["publish", site, "--snapshot", "1.0.0"], publisher.cwd, publisher.home);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("a snapshot is never overwritten");
    const snapshot = JSON.parse(readFileSync(join(root, "v1.0.0", "index.json"), "utf8"));
    for (const entry of snapshot.skills) expect(sha(readFileSync(join(root, "v1.0.0", entry.url)))).toBe(entry.digest);
  }, 60_000);

  test("nginx serves the tree with the content types, HEAD and 404", async () => {
    const get = (path: string, method = "GET") => fetch(`${base}${path}`, { method });
    expect((await get("index.json")).headers.get("content-type")).toBe("application/json");
    expect((await get("fixture-prompt/SKILL.md")).headers.get("content-type")).toBe("text/markdown");
    const archive = await get("folder-skill.tar.gz", "HEAD");
    expect([archive.status, archive.headers.get("content-type")]).toEqual([200, "application/gzip"]);
    expect((await get("no-such/SKILL.md")).status).toBe(404);
  });

  test("a second project syncs it, locks it, and serves every skill byte-identical over MCP", async () => {
    const synced = await runCli(["sync"], consumer.cwd, consumer.home);
    expect(synced.stdout).toContain("locked at");
    expect(synced.code).toBe(0);
    const lock = JSON.parse(readFileSync(join(consumer.cwd, "skill-central.lock"), "utf8"));
    expect(lock.layers.vendor.url).toBe(`${base}index.json`);
    expect(lock.layers.vendor.skills["fixture-prompt"]).toMatchObject({ version: "2.1.0" });
    const [theirs, ours] = await Promise.all([
      connect(SOURCE_TARGET, publisher.cwd, publisher.home),
      connect(SOURCE_TARGET, consumer.cwd, consumer.home),
    ]);
    try {
      const published = await listSkills(theirs.client);
      const consumed = await listSkills(ours.client);
      expect(consumed).toEqual(published);
      expect(published.length).toBeGreaterThan(5);
      expect(await readAll(ours.client, consumed)).toEqual(await readAll(theirs.client, published));
    } finally {
      await Promise.all([theirs.close(), ours.close()]);
    }
  }, 60_000);

  test("only http(s) URLs are taken", async () => {
    const other = makeFixture({ "skill-central.yaml": consumerConfig("ftp://example.com/.well-known/agent-skills/") });
    try {
      const run = await runCli(["list"], other.cwd, other.home);
      expect(run.stderr).toContain("must be an http:// or https:// URL (other schemes are refused)");
    } finally {
      other.cleanup();
    }
  });

  test("with the host down: sync --check passes, a locked copy keeps serving, sync notes it could not read the index", async () => {
    nginx!.proc.kill("SIGQUIT");
    await nginx!.proc.exited;
    const check = await runCli(["sync", "--check"], consumer.cwd, consumer.home);
    expect(check.code).toBe(0);
    const sync = await runCli(["sync"], consumer.cwd, consumer.home);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain("the index was not read");
    const list = await runCli(["list", "--json"], consumer.cwd, consumer.home);
    expect(JSON.parse(list.stdout).map((s: { id: string }) => s.id)).toContain("folder-skill");
  }, 30_000);
});

describe("the live index of mcp --http, behind its token", () => {
  let publisher: Fixture;
  let server: HttpServer;

  beforeAll(async () => {
    publisher = makeFixture({
      ".skills/live-one.yaml": "id: live-one\ndescription: Live\ntype: prompt\nprompt: 'v1'\n",
    });
    const tokens = writeTokenFile(join(publisher.cwd, "tokens"), `team ${TOKEN}\n`);
    server = await startHttpServer({
      target: SOURCE_TARGET,
      cwd: publisher.cwd,
      home: publisher.home,
      args: ["--token-file", tokens],
    });
  }, 30_000);

  afterAll(async () => {
    await server?.stop("SIGKILL");
    publisher?.cleanup();
  });

  test("401 without the token; with it, ETag/304, HEAD, 404; consumed through tokenEnv; a reload changes the index", async () => {
    const index = `${server.base}/.well-known/agent-skills/index.json`;
    const auth = { Authorization: `Bearer ${TOKEN}` };
    expect((await fetch(index)).status).toBe(401);
    const got = await fetch(index, { headers: auth });
    expect([got.status, got.headers.get("content-type"), got.headers.get("cache-control")]).toEqual([
      200,
      "application/json",
      "private, no-cache",
    ]);
    const body = new Uint8Array(await got.arrayBuffer());
    expect(got.headers.get("etag")).toBe(`"${sha(body).slice(7)}"`);
    const cached = await fetch(index, { headers: { ...auth, "If-None-Match": got.headers.get("etag")! } });
    expect(cached.status).toBe(304);
    const head = await fetch(`${server.base}/.well-known/agent-skills/live-one/SKILL.md`, {
      method: "HEAD",
      headers: auth,
    });
    expect([head.status, head.headers.get("content-type")]).toEqual([200, "text/markdown; charset=utf-8"]);
    expect((await fetch(`${server.base}/.well-known/agent-skills/nope.tar.gz`, { headers: auth })).status).toBe(404);

    const consumer = makeFixture({
      "skill-central.yaml": consumerConfig(`${server.base}/.well-known/agent-skills/`, ", tokenEnv: PUB_TOKEN"),
    });
    try {
      const denied = await runCli(["sync"], consumer.cwd, consumer.home, { PUB_TOKEN: "wrong-token-xxxxxxxxxxxx" });
      expect(denied.code).toBe(1);
      expect(denied.stdout).toContain("HTTP 401 (the token was not accepted)");
      expect(denied.stdout + denied.stderr).not.toContain("wrong-token-xxxxxxxxxxxx");
      const synced = await runCli(["sync"], consumer.cwd, consumer.home, { PUB_TOKEN: TOKEN });
      expect(synced.code).toBe(0);
      expect(synced.stdout + synced.stderr).not.toContain(TOKEN);
      const { client, transport } = await connectHttp(server.url, "legacy", auth);
      const ours = await connect(SOURCE_TARGET, consumer.cwd, consumer.home);
      try {
        const theirs = await listSkills(client);
        expect(await listSkills(ours.client)).toEqual(theirs);
        expect(await readAll(ours.client, theirs)).toEqual(await readAll(client, theirs));
      } finally {
        await Promise.all([ours.close(), transport.close()]);
      }
      // Live reload: the index follows the skill, and its digest the bytes.
      publisher.write(
        ".skills/live-one.yaml",
        "id: live-one\ndescription: Live, changed\ntype: prompt\nprompt: 'v2'\n",
      );
      for (;;) {
        const now = (await (await fetch(index, { headers: auth })).json()) as {
          skills: { name: string; description: string; url: string; digest: string }[];
        };
        const entry = now.skills.find((s) => s.name === "live-one")!;
        if (entry.description === "Live, changed") {
          const artifact = await fetch(`${server.base}/.well-known/agent-skills/${entry.url}`, { headers: auth });
          expect(sha(new Uint8Array(await artifact.arrayBuffer()))).toBe(entry.digest);
          break;
        }
        await Bun.sleep(50);
      }
      const updated = await runCli(["sync", "--update"], consumer.cwd, consumer.home, { PUB_TOKEN: TOKEN });
      expect(updated.code).toBe(0);
      expect(updated.stdout).toContain("~ live-one");
    } finally {
      consumer.cleanup();
    }
  }, 60_000);
});

/** A tar.gz whose one entry gets `typeflag` (e.g. "2": a symbolic link to `target`). */
function tarWithType(path: string, typeflag: string, target: string): Uint8Array {
  const tar = new Uint8Array(gunzipSync(writeTarGz([{ path, bytes: new Uint8Array() }])));
  tar[156] = typeflag.charCodeAt(0);
  tar.set(new TextEncoder().encode(target), 157);
  tar.set(new TextEncoder().encode("        "), 148);
  let sum = 0;
  for (const byte of tar.subarray(0, 512)) sum += byte;
  tar.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
  return new Uint8Array(gzipSync(tar));
}

describe("hostile indexes are refused, naming the skill and the reason, and nothing is served", () => {
  const skillMd = new TextEncoder().encode("---\nname: evil\ndescription: Evil\n---\nbody\n");
  const withSkill = (extra: { path: string; bytes: Uint8Array }[]) =>
    writeTarGz([{ path: "SKILL.md", bytes: skillMd }, ...extra]);
  const cases: Record<
    string,
    { artifact: Uint8Array; digest?: string; type?: string; noSchema?: boolean; reason: string }
  > = {
    tampered: {
      artifact: (() => {
        const bytes = withSkill([{ path: "a.md", bytes: new TextEncoder().encode("a") }]);
        return bytes;
      })(),
      digest: sha(withSkill([{ path: "a.md", bytes: new TextEncoder().encode("b") }])),
      reason: "digest mismatch",
    },
    mismatch: { artifact: skillMd, type: "skill-md", digest: `sha256:${"0".repeat(64)}`, reason: "digest mismatch" },
    dotdot: {
      artifact: withSkill([{ path: "../escape.md", bytes: new Uint8Array(1) }]),
      reason: `leaves the skill's folder`,
    },
    symlink: { artifact: tarWithType("link", "2", "/etc/passwd"), reason: "is a symbolic link" },
    bomb: {
      artifact: withSkill([{ path: "zeros.bin", bytes: new Uint8Array(64 * 1024 * 1024) }]),
      reason: "decompression bomb",
    },
    "no-schema": { artifact: skillMd, type: "skill-md", noSchema: true, reason: 'the index has no "$schema"' },
  };
  let host: ReturnType<typeof Bun.serve>;

  beforeAll(() => {
    host = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const [, name, file] = new URL(request.url).pathname.split("/");
        const c = cases[name!];
        if (!c) return new Response("no", { status: 404 });
        if (file === "index.json") {
          const type = c.type ?? "archive";
          const entry = {
            name: "evil",
            description: "Evil",
            type,
            url: type === "archive" ? "evil.tar.gz" : "evil/SKILL.md",
            digest: c.digest ?? sha(c.artifact),
          };
          return Response.json(c.noSchema ? { skills: [entry] } : { $schema: SCHEMA, skills: [entry] });
        }
        return new Response(c.artifact, { headers: { "Content-Type": c.type ? "text/markdown" : "application/gzip" } });
      },
    });
  });

  afterAll(() => host?.stop(true));

  for (const [name, c] of Object.entries(cases)) {
    test(`${name}: refused with "${c.reason}"`, async () => {
      const fixture = makeFixture({ "skill-central.yaml": consumerConfig(`http://127.0.0.1:${host.port}/${name}/`) });
      try {
        const run = await runCli(["sync"], fixture.cwd, fixture.home);
        expect(run.code).toBe(1);
        expect(run.stdout).toContain(c.reason);
        if (!c.noSchema) expect(run.stdout).toContain('skill "evil": refused');
        expect(existsSync(join(fixture.cwd, "skill-central.lock"))).toBe(false);
        const list = await runCli(["list", "--json"], fixture.cwd, fixture.home);
        expect(JSON.parse(list.stdout || "[]")).toEqual([]);
        expect(list.stderr).toContain("skill-central sync");
        const cache = join(fixture.home, ".cache", "skill-central", "well-known");
        const copies = existsSync(cache) ? readdirSync(cache).flatMap((d) => readdirSync(join(cache, d))) : [];
        expect(copies.filter((f) => f === "copies")).toEqual([]);
        expect(statSync(fixture.cwd).isDirectory()).toBe(true);
      } finally {
        fixture.cleanup();
      }
    }, 30_000);
  }
});
