import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { makeRemote, skill } from "../helpers/git-remote.ts";
import { connect, type ServerTarget } from "../helpers/server.ts";
import { type CliRun, runTarget } from "./cli-run.ts";
import { ListChanges } from "./live-session.ts";

/**
 * Issue 50 item 1, `policy.sources`, against a target (the source entry, or the compiled binary):
 * real git with local bare repositories, a real well-known host (an in-process `Bun.serve` that
 * counts what it is asked), and the real server. A git or url layer outside the list is refused
 * at `sync` (nothing of it fetched) and at start (nothing of it served, not even its cached copy).
 */

const enc = (text: string) => new TextEncoder().encode(text);
const sha = (bytes: Uint8Array) => `sha256:${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`;
const SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/** A well-known host serving one index of SKILL.md skills at `/site/`; every path it was asked for. */
class Host {
  readonly requests: string[] = [];
  private readonly files = new Map<string, Uint8Array>();
  readonly server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const path = new URL(request.url).pathname;
      this.requests.push(path);
      const file = this.files.get(path);
      return file ? new Response(file) : new Response("no", { status: 404 });
    },
  });

  constructor(names: string[]) {
    const skills = names.map((name) => {
      const bytes = enc(`---\nname: ${name}\ndescription: The ${name} skill\n---\nBody of ${name}\n`);
      this.files.set(`/site/${name}/SKILL.md`, bytes);
      return { name, description: `The ${name} skill`, type: "skill-md", url: `${name}/SKILL.md`, digest: sha(bytes) };
    });
    this.files.set("/site/index.json", enc(JSON.stringify({ $schema: SCHEMA, skills })));
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}/site/`;
  }
}

/** Every file under `dir` (none when it does not exist). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

export function sourcePolicySuite(target: ServerTarget): void {
  describe(`policy.sources: sources, fail closed (${target.name})`, () => {
    let fixture: Fixture;
    let host: Host;
    const run = (args: string[]): Promise<CliRun> => runTarget(target, fixture, args);

    beforeAll(() => {
      host = new Host(["vended"]);
    });
    afterAll(() => host.server.stop(true));
    afterEach(() => fixture?.cleanup());

    /** Two repositories, one under the allowed folder (`srv/`), one outside it; and the project declaring both and the url layer. */
    function project() {
      fixture = makeFixture();
      const allowed = makeRemote(join(fixture.root, "srv"), "allowed.git");
      allowed.commit({ "kept.yaml": skill("kept") });
      const outside = makeRemote(join(fixture.root, "elsewhere"), "outside.git");
      outside.commit({ "smuggled.yaml": skill("smuggled") });
      fixture.write(
        "skill-central.yaml",
        [
          "builtin: false",
          "layers:",
          `  - { name: allowed, priority: 50, git: "${allowed.url}" }`,
          `  - { name: outside, priority: 60, git: "${outside.url}" }`,
          `  - { name: vendor, priority: 70, url: "${host.url}" }`,
          "",
        ].join("\n"),
      );
      const pattern = `file://${join(fixture.root, "srv")}/*`;
      const userConfig = join(fixture.home, ".skill-central", "config.yaml");
      const policy = () => fixture.write("~/.skill-central/config.yaml", `policy:\n  sources: ["${pattern}"]\n`);
      return { allowed, outside, pattern, userConfig, policy };
    }

    test("sync refuses a git and a url layer outside the list: nothing of them is fetched, it exits 1 naming each layer and the list; the allowed layer syncs and is locked", async () => {
      const { outside, pattern, userConfig, policy } = project();
      policy();
      const asked = host.requests.length;
      const synced = await run(["sync"]);
      expect(synced.code).toBe(1);
      const out = synced.stdout + synced.stderr;
      const list = `it is outside policy.sources (${pattern}; set in ${userConfig})`;
      expect(out).toContain(`outside  ${outside.url}`);
      expect(out).toContain(list);
      expect(out).toContain(`vendor  ${host.url}index.json`);
      expect(out.split(list)).toHaveLength(3);
      // Nothing of either layer was asked for: no request to the host, no cache entry for the repository.
      expect(host.requests.length).toBe(asked);
      const cached = filesUnder(join(fixture.home, ".cache", "skill-central"));
      expect(cached.some((f) => f.includes("outside"))).toBe(false);
      expect(cached.some((f) => f.includes("allowed"))).toBe(true);
      const lock = JSON.parse(readFileSync(join(fixture.cwd, "skill-central.lock"), "utf8"));
      expect(Object.keys(lock.layers)).toEqual(["allowed"]);
    }, 60_000);

    test("a URL's credentials never appear in the refusal", async () => {
      fixture = makeFixture({
        "skill-central.yaml":
          'builtin: false\nlayers:\n  - { name: vendor, priority: 50, git: "https://deploy:s3cretTOKEN42@git.example.invalid/acme/x.git" }\n',
        "~/.skill-central/config.yaml": "policy:\n  sources: [https://github.com/acme/*]\n",
      });
      const synced = await run(["sync"]);
      expect(synced.code).toBe(1);
      expect(synced.stdout + synced.stderr).toContain(
        "vendor  https://***@git.example.invalid/acme/x.git\n  failed: it is outside policy.sources (https://github.com/acme/*;",
      );
      expect(synced.stdout + synced.stderr).not.toContain("s3cretTOKEN42");
      const doctor = await run(["doctor"]);
      expect(doctor.code).not.toBe(0);
      expect(doctor.stdout + doctor.stderr).toContain(
        'git layer "vendor" (https://***@git.example.invalid/acme/x.git): it is outside policy.sources',
      );
      expect(doctor.stdout + doctor.stderr).not.toContain("s3cretTOKEN42");
    }, 60_000);

    test("a source outside the list refused with nothing of it served: not even its cached copy; one line names it and the list; list, show and doctor agree", async () => {
      const { outside, pattern, userConfig, policy } = project();
      // Synced before the admin's policy arrived: both copies are in the cache.
      const synced = await run(["sync"]);
      expect(synced.code).toBe(0);
      // Served before: the server's warm-start index knows the layer's files too.
      const before = await connect(target, fixture.cwd, fixture.home);
      try {
        const { prompts } = await before.client.listPrompts();
        expect(
          prompts
            .map((p) => p.name)
            .filter((n) => n !== "skills:compose")
            .sort(),
        ).toEqual(["kept", "smuggled", "vended"]);
      } finally {
        await before.close();
      }
      policy();
      // A copy that were read would be found damaged (an error naming its contentHash): it is not read at all.
      const copies = filesUnder(join(fixture.home, ".cache", "skill-central")).filter(
        (f) => f.endsWith("smuggled.yaml") || f.endsWith("SKILL.md"),
      );
      expect(copies.length).toBeGreaterThanOrEqual(2);
      for (const copy of copies) appendFileSync(copy, "\n# changed behind the cache's back\n");

      const server = await connect(target, fixture.cwd, fixture.home);
      try {
        const { prompts } = await server.client.listPrompts();
        const names = prompts.map((p) => p.name);
        expect(names).toContain("kept");
        expect(names).not.toContain("smuggled");
        expect(names).not.toContain("vended");
        const { resources } = await server.client.listResources();
        expect(resources.map((r) => r.uri).join(" ")).not.toMatch(/smuggled|vended/);
        const line = `git layer "outside" (${outside.url}): it is outside policy.sources (${pattern}; set in ${userConfig}), so nothing of it is fetched or served`;
        const wellKnown = `url layer "vendor" (${host.url}index.json): it is outside policy.sources`;
        while (!(server.stderr().includes(line) && server.stderr().includes(wellKnown)))
          await new Promise((resolve) => setTimeout(resolve, 20));
        expect(server.stderr().split(line)).toHaveLength(2);
        expect(server.stderr()).not.toContain("contentHash");
      } finally {
        await server.close();
      }

      const list = await run(["list", "--json"]);
      const ids = (JSON.parse(list.stdout) as { id: string }[]).map((s) => s.id);
      expect(ids).toEqual(["kept"]);
      const show = await run(["show", "smuggled"]);
      expect(show.code).not.toBe(0);
      const doctor = await run(["doctor"]);
      expect(doctor.code).not.toBe(0);
      expect(doctor.stdout + doctor.stderr).toContain(
        `git layer "outside" (${outside.url}): it is outside policy.sources`,
      );
      expect(doctor.stdout + doctor.stderr).not.toContain("contentHash");
    }, 90_000);

    test("a running server obeys a policy written to the user's config: prompts/list_changed, and the refused layer's skills are gone", async () => {
      const { policy } = project();
      fixture.write("~/.skill-central/config.yaml", "# no policy yet\n");
      expect((await run(["sync"])).code).toBe(0);
      const server = await connect(target, fixture.cwd, fixture.home);
      try {
        const changes = new ListChanges(server.client);
        const names = async () =>
          (await server.client.listPrompts()).prompts.map((p) => p.name).filter((n) => n !== "skills:compose");
        expect((await names()).sort()).toEqual(["kept", "smuggled", "vended"]);
        policy();
        await changes.waitFor("prompts", 1, 60_000);
        expect(await names()).toEqual(["kept"]);
      } finally {
        await server.close();
      }
    }, 90_000);

    test("a project's list cannot widen the user's: a layer it adds stays refused", async () => {
      const { pattern, userConfig, policy } = project();
      policy();
      const wider = `file://${fixture.root}/**`;
      const config = readFileSync(join(fixture.cwd, "skill-central.yaml"), "utf8");
      fixture.write(
        "skill-central.yaml",
        `policy:\n  sources: ["${wider}", "http://127.0.0.1:${host.server.port}"]\n${config}`,
      );
      const synced = await run(["sync"]);
      expect(synced.code).toBe(1);
      expect(synced.stdout + synced.stderr).toContain(
        `it is outside policy.sources (${pattern}; set in ${userConfig})`,
      );
      const list = await run(["list", "--json"]);
      expect((JSON.parse(list.stdout) as { id: string }[]).map((s) => s.id)).toEqual(["kept"]);
    }, 60_000);
  });
}
