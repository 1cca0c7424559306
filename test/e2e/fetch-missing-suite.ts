import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote, skill } from "../helpers/git-remote.ts";
import { RawClient } from "../helpers/raw-client.ts";
import { promptNames, promptText } from "../helpers/served-prompts.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { runCommand } from "./cli-run.ts";

/**
 * Issue 51 item 2 on the wire, against the server `target` runs (the source entry, or the
 * compiled binary): a project git layer locked in `skill-central.lock` whose copy is not on this
 * machine (a fresh clone, a cleared cache) is fetched by `mcp` itself, in the background, at the
 * locked commit and through the audit gate; clients are told with `list_changed`. Offline, one
 * warning and the rest served; a locked commit the gate blocks is never served. Real git, a real
 * server over stdio; every wait is on the server's own output.
 */

const PIPE = readFileSync(
  join(import.meta.dir, "..", "fixtures", "audit", "remote-code-pipe", "malicious", "pipe-shell", "SKILL.md"),
  "utf8",
);

const cacheDir = (fixture: Fixture) => join(fixture.home, ".cache", "skill-central");
const env = (fixture: Fixture): Record<string, string> => ({
  HOME: fixture.home,
  PATH: process.env.PATH ?? "",
  NO_COLOR: "1",
  SKILL_CENTRAL_CACHE_DIR: cacheDir(fixture),
});

const count = (text: string, part: string) => text.split(part).length - 1;

const SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
const skillMd = (name: string, body: string) =>
  new TextEncoder().encode(`---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}\n`);
const sha = (bytes: Uint8Array) => `sha256:${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`;

/** An in-process Agent Skills host serving one index of SKILL.md skills, which a test can change. */
function wellKnownHost() {
  const files = new Map<string, { bytes: Uint8Array; type: string }>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const file = files.get(new URL(request.url).pathname);
      return file
        ? new Response(file.bytes, { headers: { "Content-Type": file.type } })
        : new Response("no", { status: 404 });
    },
  });
  const publish = (skills: Record<string, string>) => {
    const entries = Object.entries(skills).map(([name, body]) => {
      const artifact = skillMd(name, body);
      files.set(`/site/${name}/SKILL.md`, { bytes: artifact, type: "text/markdown" });
      return {
        name,
        description: `The ${name} skill`,
        type: "skill-md",
        url: `${name}/SKILL.md`,
        digest: sha(artifact),
      };
    });
    const index = JSON.stringify({ $schema: SCHEMA, skills: entries });
    files.set("/site/index.json", { bytes: new TextEncoder().encode(index), type: "application/json" });
  };
  return { url: `http://127.0.0.1:${server.port}/site/`, publish, stop: () => server.stop(true) };
}

export function fetchMissingSuite(target: ServerTarget): void {
  /** The CLI of the same target (`bun src/cli.ts …` or the binary). */
  const cli = (args: string[], fixture: Fixture) =>
    runCommand([target.command, ...target.args.slice(0, -1), ...args], fixture.cwd, env(fixture));

  /** A project with one git layer `team` locked at the remote's first commit, then the branch moved on and the cache cleared. */
  async function lockedProject(files: Record<string, string>, userConfig = "") {
    const fixture = makeFixture();
    const remote = makeRemote(join(fixture.root, "srv"));
    const locked = remote.commit(files);
    fixture.write(
      "skill-central.yaml",
      `layers:\n  - { name: team, priority: 70, git: ${remote.url}, ref: main }\n  - { name: local, path: ./.skills, priority: 10 }\n`,
    );
    fixture.write(".skills/local-note.yaml", skill("local-note", "Local"));
    if (userConfig) fixture.write("~/.skill-central/config.yaml", userConfig);
    const synced = await cli(["sync"], fixture);
    expect(synced.code).toBe(0);
    expect(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8")).toContain(locked);
    // The branch moves on after the lock: the server must serve the locked commit, not this one.
    remote.commit({ ...files, "team-note.yaml": skill("team-note", "Team v2") });
    // A fresh machine: no copy, no repository in the cache.
    rmSync(join(cacheDir(fixture), "git"), { recursive: true, force: true });
    return { fixture, remote, locked };
  }

  describe(`the server fetches a missing locked copy (${target.name})`, () => {
    test("a locked git layer with no copy: fetched in the background at the locked commit, then list_changed", async () => {
      const { fixture, locked } = await lockedProject({ "team-note.yaml": skill("team-note", "Team v1") });
      try {
        const server = await RawClient.start(target, fixture.cwd, env(fixture));
        try {
          // Served at once without the team layer: the start does not wait for the fetch.
          await server.stderrIncludes(`there is no local copy of commit ${locked.slice(0, 12)}`);
          await server.notified("notifications/prompts/list_changed", 1, 60_000);
          const names = await promptNames(server);
          expect(names).toContain("team-note");
          expect(names).toContain("local-note");
          // The locked commit's text, not the branch's newer one.
          expect(await promptText(server, "team-note")).toBe("Team v1");
          expect(server.stderr()).toContain(
            `fetched the missing copy of git layer "team" (${join(fixture.root, "srv", "skills.git").replace(/^/, "file://")}) at its locked commit ${locked.slice(0, 12)}`,
          );
          // The lockfile is the team's: the server never writes it.
          expect(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8")).toContain(locked);
        } finally {
          await server.close();
        }
        for (const out of server.lines) expect(JSON.parse(out)).toHaveProperty("jsonrpc", "2.0");
        // The copy stays for the next start and the CLI: `sync --check` finds nothing to do.
        expect((await cli(["sync", "--check"], fixture)).code).toBe(0);
      } finally {
        fixture.cleanup();
      }
    }, 90_000);

    test("offline (the remote is gone): one warning naming the layer, the rest served, no retry on a reload", async () => {
      const { fixture, remote } = await lockedProject({ "team-note.yaml": skill("team-note", "Team v1") });
      rmSync(remote.dir, { recursive: true, force: true });
      try {
        const server = await RawClient.start(target, fixture.cwd, env(fixture));
        try {
          const warning = 'cannot fetch the missing copy of git layer "team"';
          await server.stderrIncludes(warning, 60_000);
          const names = await promptNames(server);
          expect(names).toContain("local-note");
          // The built-in layer is served too.
          expect(names).toContain("review-pr");
          expect(names).not.toContain("team-note");
          // A reload (a local skill added) does not try the same lock entry again.
          fixture.write(".skills/second.yaml", skill("second", "Second"));
          await server.notified("notifications/prompts/list_changed", 1, 30_000);
          expect(await promptNames(server)).toContain("second");
          expect(count(server.stderr(), warning)).toBe(1);
          expect(server.stderr()).toContain("the other layers are served");
        } finally {
          await server.close();
        }
        for (const out of server.lines) expect(JSON.parse(out)).toHaveProperty("jsonrpc", "2.0");
      } finally {
        fixture.cleanup();
      }
    }, 90_000);

    test("a locked commit the audit gate blocks is fetched but never served: one warning naming the skill and the rule", async () => {
      // Locked under a user who lets everything through; served for a user on the default gate.
      const { fixture, locked } = await lockedProject(
        { "team-note.yaml": skill("team-note", "Team v1"), "tools/pipe-shell/SKILL.md": PIPE },
        "audit:\n  block: never\n",
      );
      fixture.remove("~/.skill-central/config.yaml");
      try {
        const server = await RawClient.start(target, fixture.cwd, env(fixture));
        try {
          const warning = 'cannot fetch the missing copy of git layer "team"';
          await server.stderrIncludes(warning, 60_000);
          const line = server
            .stderr()
            .split("\n")
            .find((l) => l.includes(warning))!;
          expect(line).toContain(`commit ${locked.slice(0, 12)} is refused by the audit`);
          expect(line).toContain('skill "pipe-shell" is blocked by the audit');
          expect(line).toContain("remote-code-pipe at tools/pipe-shell/SKILL.md:");
          const names = await promptNames(server);
          expect(names).toContain("local-note");
          expect(names).not.toContain("team-note");
          expect(names).not.toContain("pipe-shell");
          expect(count(server.stderr(), warning)).toBe(1);
        } finally {
          await server.close();
        }
      } finally {
        fixture.cleanup();
      }
    }, 90_000);

    test("two servers started at once on an empty cache: both serve the locked copy, the cache stays whole", async () => {
      const { fixture, locked } = await lockedProject({ "team-note.yaml": skill("team-note", "Team v1") });
      try {
        const [a, b] = await Promise.all([
          RawClient.start(target, fixture.cwd, env(fixture)),
          RawClient.start(target, fixture.cwd, env(fixture)),
        ]);
        try {
          for (const server of [a, b]) {
            await server.stderrIncludes(`at its locked commit ${locked.slice(0, 12)}`, 60_000);
            await server.notified("notifications/prompts/list_changed", 1, 60_000);
            expect(await promptText(server, "team-note")).toBe("Team v1");
          }
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
        expect((await cli(["sync", "--check"], fixture)).code).toBe(0);
      } finally {
        fixture.cleanup();
      }
    }, 120_000);

    test("a locked url layer with no copy: fetched from the locked index, verified against the lock's digests", async () => {
      const fixture = makeFixture();
      const host = wellKnownHost();
      try {
        host.publish({ "vendor-note": "Vendor v1" });
        fixture.write(
          "skill-central.yaml",
          `layers:\n  - { name: vendor, priority: 60, url: "${host.url}" }\n  - { name: local, path: ./.skills, priority: 10 }\n`,
        );
        fixture.write(".skills/local-note.yaml", skill("local-note", "Local"));
        expect((await cli(["sync"], fixture)).code).toBe(0);
        rmSync(join(cacheDir(fixture), "well-known"), { recursive: true, force: true });

        const server = await RawClient.start(target, fixture.cwd, env(fixture));
        try {
          await server.notified("notifications/prompts/list_changed", 1, 60_000);
          expect(await promptNames(server)).toContain("vendor-note");
          expect(server.stderr()).toContain('fetched the missing copy of url layer "vendor"');
        } finally {
          await server.close();
        }

        // The host now serves other content than the lock names: refused, never served.
        host.publish({ "vendor-note": "Vendor v2, not what the team locked" });
        rmSync(join(cacheDir(fixture), "well-known"), { recursive: true, force: true });
        const again = await RawClient.start(target, fixture.cwd, env(fixture));
        try {
          const warning = 'cannot fetch the missing copy of url layer "vendor"';
          await again.stderrIncludes(warning, 60_000);
          const names = await promptNames(again);
          expect(names).toContain("local-note");
          expect(names).not.toContain("vendor-note");
          expect(count(again.stderr(), warning)).toBe(1);
        } finally {
          await again.close();
        }
      } finally {
        host.stop();
        fixture.cleanup();
      }
    }, 120_000);

    test("a remote that cannot be reached: the warning names the layer by its URL without the credentials", async () => {
      // Port 1 refuses at once: offline without waiting on a timeout.
      const secretUrl = "https://fetch-user:s3cret-token@127.0.0.1:1/skills.git";
      const fixture = makeFixture({
        "skill-central.yaml": `layers:\n  - { name: team, priority: 70, git: "${secretUrl}", ref: main }\n`,
        "skill-central.lock": `${JSON.stringify({
          lockfileVersion: 1,
          layers: {
            team: {
              url: "https://127.0.0.1:1/skills.git",
              ref: "main",
              path: "",
              commit: "a".repeat(40),
              contentHash: `sha256:${"b".repeat(64)}`,
            },
          },
        })}\n`,
      });
      try {
        const server = await RawClient.start(target, fixture.cwd, env(fixture));
        try {
          const warning = 'cannot fetch the missing copy of git layer "team" (https://';
          await server.stderrIncludes(warning, 60_000);
          expect(await promptNames(server)).toContain("review-pr");
          expect(count(server.stderr(), warning)).toBe(1);
          expect(server.stderr()).toContain("127.0.0.1:1/skills.git");
          expect(server.stderr()).not.toContain("s3cret-token");
        } finally {
          await server.close();
        }
      } finally {
        fixture.cleanup();
      }
    }, 90_000);
  });
}
