import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeTarGz } from "../../src/storage/tar-gz.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, type ServerTarget } from "../helpers/server.ts";
import { type CliRun, runCommand } from "./cli-run.ts";

/**
 * Issue 34's well-known items, against a target (the source entry, or the compiled binary):
 * where a layer's token goes, an index entry that is another skill, archives no file system can
 * hold, the bounds of a url layer as a whole, what `publish` leaves out and says, and the cache
 * folder's name as a skill sees it. The hosts are in-process `Bun.serve`s that record what they
 * were asked (and with which Authorization header).
 */

/** The server target's command decides: `source` runs `bun src/cli.ts`, anything else the binary. */
async function cli(target: ServerTarget, args: string[], fixture: Fixture, env: Record<string, string> = {}) {
  const command = [target.command, ...target.args.slice(0, -1), ...args];
  return runCommand(command, fixture.cwd, { HOME: fixture.home, PATH: process.env.PATH ?? "", ...env });
}

const SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
const TOKEN = "consumer-token-0123456789abcdef";
const enc = (text: string) => new TextEncoder().encode(text);
const sha = (bytes: Uint8Array) => `sha256:${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`;
const skillMd = (name: string, body = "body") =>
  enc(`---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}\n`);

interface Served {
  bytes: Uint8Array;
  type: string;
}

/** An in-process host: `files` by path (a `Response` for redirects), and every request it got. */
class Host {
  readonly files = new Map<string, Served | (() => Response)>();
  readonly requests: { path: string; authorization: string | null }[] = [];
  readonly server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const path = new URL(request.url).pathname;
      this.requests.push({ path, authorization: request.headers.get("authorization") });
      const file = this.files.get(path);
      if (typeof file === "function") return file();
      return file
        ? new Response(file.bytes, { headers: { "Content-Type": file.type } })
        : new Response("no", { status: 404 });
    },
  });

  get base(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** Serves an index at `/<site>/index.json` with these entries (each artifact served where its url says). */
  site(
    site: string,
    entries: { name: string; artifact: Uint8Array; type?: "skill-md" | "archive"; url?: string; host?: Host }[],
  ): string {
    const skills = entries.map((e) => {
      const type = e.type ?? "archive";
      const path = `/${site}/${e.name}${type === "archive" ? ".tar.gz" : "/SKILL.md"}`;
      (e.host ?? this).files.set(path, {
        bytes: e.artifact,
        type: type === "archive" ? "application/gzip" : "text/markdown",
      });
      const url = e.url ?? (e.host ? `${e.host.base}${path}` : path.slice(site.length + 2));
      return { name: e.name, description: `The ${e.name} skill`, type, url, digest: sha(e.artifact) };
    });
    this.files.set(`/${site}/index.json`, {
      bytes: enc(JSON.stringify({ $schema: SCHEMA, skills })),
      type: "application/json",
    });
    return `${this.base}/${site}/`;
  }

  stop(): void {
    this.server.stop(true);
  }
}

function layers(...list: { name: string; url: string; extra?: string }[]): string {
  return `builtin: false\nlayers:\n${list.map((l, i) => `  - { name: ${l.name}, priority: ${30 + i}, url: "${l.url}"${l.extra ?? ""} }\n`).join("")}`;
}

export function wellKnownConsumerSuite(target: ServerTarget): void {
  describe(`the well-known consumer, hardened (${target.name})`, () => {
    let host: Host;
    let other: Host;
    const fixtures: Fixture[] = [];
    const fixture = (files: Record<string, string>) => {
      const made = makeFixture(files);
      fixtures.push(made);
      return made;
    };
    const run = (f: Fixture, args: string[], env: Record<string, string> = {}): Promise<CliRun> =>
      cli(target, args, f, env);

    beforeAll(() => {
      host = new Host();
      other = new Host();
    });

    afterAll(() => {
      host?.stop();
      other?.stop();
      for (const f of fixtures) f.cleanup();
    });

    test("the tokenEnv token goes to the layer's origin only: not to a host an entry names, nor through a redirect", async () => {
      const redirected = writeTarGz([{ path: "SKILL.md", bytes: skillMd("redirected") }]);
      other.files.set("/elsewhere/redirected.tar.gz", { bytes: redirected, type: "application/gzip" });
      const url = host.site("token", [
        { name: "home", artifact: writeTarGz([{ path: "SKILL.md", bytes: skillMd("home") }]) },
        { name: "away", artifact: writeTarGz([{ path: "SKILL.md", bytes: skillMd("away") }]), host: other },
        { name: "redirected", artifact: redirected, url: "redirected.tar.gz" },
      ]);
      host.files.set("/token/redirected.tar.gz", () =>
        Response.redirect(`${other.base}/elsewhere/redirected.tar.gz`, 302),
      );
      const f = fixture({ "skill-central.yaml": layers({ name: "vendor", url, extra: ", tokenEnv: VENDOR_TOKEN" }) });
      const synced = await run(f, ["sync"], { VENDOR_TOKEN: TOKEN });
      expect(synced.stdout + synced.stderr).not.toContain(TOKEN);
      expect(synced.code).toBe(0);
      const atHome = host.requests.filter((r) => r.path.startsWith("/token/"));
      expect(atHome.map((r) => r.authorization)).toEqual(atHome.map(() => `Bearer ${TOKEN}`));
      const away = other.requests.filter((r) => r.path.includes("/token/") || r.path.startsWith("/elsewhere/"));
      expect(away.map((r) => r.path).sort()).toEqual(["/elsewhere/redirected.tar.gz", "/token/away.tar.gz"]);
      expect(away.map((r) => r.authorization)).toEqual([null, null]);
    }, 60_000);

    test("a token over plain http:// to a host that is not this machine is refused, saying why", async () => {
      const f = fixture({
        "skill-central.yaml": layers({
          name: "vendor",
          url: "http://skills.example.invalid/.well-known/agent-skills/",
          extra: ", tokenEnv: VENDOR_TOKEN",
        }),
      });
      const synced = await run(f, ["sync"], { VENDOR_TOKEN: TOKEN });
      expect(synced.code).toBe(1);
      expect(synced.stdout).toContain(
        "the token in VENDOR_TOKEN (tokenEnv) is not sent over plain http:// to skills.example.invalid: anyone on the way could read it",
      );
      expect(synced.stdout + synced.stderr).not.toContain(TOKEN);
    }, 30_000);

    test("an entry whose SKILL.md names another skill is refused, naming both", async () => {
      const url = host.site("impostor", [
        { name: "pdf", artifact: skillMd("deploy"), type: "skill-md" },
        { name: "tar", artifact: writeTarGz([{ path: "SKILL.md", bytes: skillMd("deploy") }]) },
      ]);
      const f = fixture({ "skill-central.yaml": layers({ name: "vendor", url, extra: ", skills: [pdf, tar]" }) });
      const synced = await run(f, ["sync"]);
      expect(synced.code).toBe(1);
      expect(synced.stdout).toContain(
        'skill "pdf": refused: the index entry is "pdf" but its SKILL.md says name: deploy',
      );
      expect(synced.stdout).toContain(
        'skill "tar": refused: the index entry is "tar" but its SKILL.md says name: deploy',
      );
      const list = await run(f, ["list", "--json"]);
      expect(JSON.parse(list.stdout || "[]")).toEqual([]);
    }, 30_000);

    test("archives no file system can hold are refused with their reason; the other layers sync and the lock is written", async () => {
      const md = (name: string) => ({ path: "SKILL.md", bytes: skillMd(name) });
      const clash = host.site("clash", [
        {
          name: "clash",
          artifact: writeTarGz([md("clash"), { path: "a", bytes: enc("x") }, { path: "a/b", bytes: enc("y") }]),
        },
      ]);
      const inside = host.site("inside", [
        { name: "inside", artifact: writeTarGz([md("inside"), { path: "SKILL.md/x", bytes: enc("y") }]) },
      ]);
      const long = host.site("long", [
        { name: "long", artifact: writeTarGz([md("long"), { path: `${"n".repeat(300)}.md`, bytes: enc("y") }]) },
      ]);
      const good = host.site("good", [{ name: "good", artifact: writeTarGz([md("good")]) }]);
      const f = fixture({
        "skill-central.yaml": layers(
          { name: "clash", url: clash },
          { name: "inside", url: inside },
          { name: "long", url: long },
          { name: "good", url: good },
        ),
      });
      const synced = await run(f, ["sync"]);
      expect(synced.stderr).not.toContain("ENOTDIR");
      expect(synced.code).toBe(1);
      expect(synced.stdout).toContain('skill "clash": refused: "a" is both a file and a folder ("a/b")');
      expect(synced.stdout).toContain('skill "inside": refused: "SKILL.md" is both a file and a folder ("SKILL.md/x")');
      expect(synced.stdout).toContain('skill "long": refused:');
      expect(synced.stdout).toContain("has a name over 255 bytes, longer than file systems allow");
      const lock = JSON.parse(readFileSync(join(f.cwd, "skill-central.lock"), "utf8"));
      expect(Object.keys(lock.layers)).toEqual(["good"]);
      const list = await run(f, ["list", "--json"]);
      expect(JSON.parse(list.stdout).map((s: { id: string }) => s.id)).toEqual(["good"]);
    }, 60_000);

    test("a url layer is bounded as a whole (64 MiB unpacked): past it the layer is refused and nothing more is fetched", async () => {
      const zeros = new Uint8Array(15 * 1024 * 1024);
      const names = Array.from({ length: 9 }, (_, i) => `big-${i + 1}`);
      const url = host.site(
        "big",
        names.map((name) => ({
          name,
          artifact: writeTarGz([
            { path: "SKILL.md", bytes: skillMd(name) },
            { path: "zeros.bin", bytes: zeros },
          ]),
        })),
      );
      const f = fixture({ "skill-central.yaml": layers({ name: "big", url }) });
      const synced = await run(f, ["sync"]);
      expect(synced.code).toBe(1);
      expect(synced.stdout).toContain("the layer is over its limit of 20000 files and 67108864 bytes unpacked");
      const fetched = host.requests.filter((r) => r.path.startsWith("/big/") && r.path.endsWith(".tar.gz"));
      expect(fetched.length).toBeLessThan(names.length);
      const cache = join(f.home, ".cache", "skill-central", "well-known");
      const copies = existsSync(cache)
        ? readdirSync(cache).flatMap((d) =>
            existsSync(join(cache, d, "copies")) ? readdirSync(join(cache, d, "copies")) : [],
          )
        : [];
      expect(copies).toEqual([]);
    }, 60_000);

    test("a lone SKILL.md larger than the loader serves (1 MiB) is refused", async () => {
      const url = host.site("huge", [
        { name: "huge", artifact: skillMd("huge", "x".repeat(1024 * 1024 + 1)), type: "skill-md" },
      ]);
      const f = fixture({ "skill-central.yaml": layers({ name: "huge", url }) });
      const synced = await run(f, ["sync"]);
      expect(synced.code).toBe(1);
      expect(synced.stdout).toContain('skill "huge": refused:');
      expect(synced.stdout).toContain("over the limit of 1048576 bytes");
    }, 30_000);

    test("publish leaves out, naming them, skills with file names sync refuses, and tool skills; it says what a YAML prompt loses", async () => {
      const f = fixture({
        "skill-central.yaml": "builtin: false\n",
        ".skills/tabbed/SKILL.md": "---\nname: tabbed\ndescription: Tabbed\n---\nbody\n",
        ".skills/tabbed/notes\tdraft.md": "notes\n",
        ".skills/slashed/SKILL.md": "---\nname: slashed\ndescription: Slashed\n---\nbody\n",
        ".skills/slashed/back\\slash.md": "notes\n",
        ".skills/fine/SKILL.md": "---\nname: fine\ndescription: Fine\n---\nbody\n",
        ".skills/greet.yaml": "id: greet\ndescription: Greets\ntype: prompt\nprompt: 'Hello {{who}}'\n",
        ".skills/calc.yaml": "id: calc\ndescription: A tool\ntype: tool\nprompt: 'sum {{a}}'\n",
      });
      const published = await run(f, ["publish", "site"]);
      expect(published.code).toBe(0);
      for (const line of [
        "2 skills published",
        "3 skills left out:",
        "  calc: a tool skill: the Agent Skills format has no tools",
        '  slashed: its file "back\\\\slash.md" has a backslash or a control character (a tab, a newline): no client would unpack it',
        '  tabbed: its file "notes\\tdraft.md" has a backslash or a control character',
        "note: 1 YAML prompt published as a SKILL.md of its template's text (greet)",
        "an Agent Skills client gets no arguments to fill in",
      ])
        expect(published.stdout).toContain(line);
      const index = JSON.parse(readFileSync(join(f.cwd, "site", ".well-known", "agent-skills", "index.json"), "utf8"));
      expect(index.skills.map((s: { name: string }) => s.name)).toEqual(["fine", "greet"]);
      const json = JSON.parse((await run(f, ["publish", "site", "--json"])).stdout);
      expect(json.leftOut.map((l: { name: string }) => l.name)).toEqual(["calc", "slashed", "tabbed"]);
      expect(json.promptsAsText).toEqual(["greet"]);
    }, 60_000);

    test("the cache folder is the whole host and port with a short hash, and so is ${CLAUDE_SKILL_DIR}", async () => {
      const url = host.site("dir", [
        { name: "where", artifact: skillMd("where", "I live in ${CLAUDE_SKILL_DIR}."), type: "skill-md" },
      ]);
      const f = fixture({ "skill-central.yaml": layers({ name: "dir", url }) });
      expect((await run(f, ["sync"])).code).toBe(0);
      const cache = join(f.home, ".cache", "skill-central", "well-known");
      const [folder, ...more] = readdirSync(cache);
      expect(more).toEqual([]);
      expect(folder).toMatch(new RegExp(`^127\\.0\\.0\\.1-${host.server.port}-[0-9a-f]{12}$`));
      const server = await connect(target, f.cwd, f.home);
      try {
        const got = await server.client.getPrompt({ name: "where" });
        const text = JSON.stringify(got.messages);
        expect(text).toContain(`/well-known/${folder}/copies/`);
        expect(text).toContain("/where.");
      } finally {
        await server.close();
      }
    }, 60_000);
  });
}
