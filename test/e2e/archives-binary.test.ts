import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import AdmZip from "adm-zip";
import { Glob } from "bun";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCommand } from "./cli-run.ts";

/**
 * The archive formats come from node-tar and adm-zip (src/storage/tar-gz.ts, zip.ts): this checks
 * that both still work once bundled into the compiled binary, where a module that loads files at
 * run time would fail.
 */

const SITE = ".well-known/agent-skills";

async function run(binary: string, args: string[], fixture: Fixture) {
  const { code, stdout, stderr } = await runCommand([binary, ...args], fixture.cwd, {
    HOME: fixture.home,
    PATH: process.env.PATH ?? "",
  });
  return { code, out: stdout + stderr, stdout };
}

describe("archives in the compiled binary", () => {
  let binary: string;
  let publisher: Fixture;
  let consumer: Fixture;
  let host: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    binary = await buildForTests();
    publisher = makeFixture({
      "skill-central.yaml": "builtin: false\n",
      ".skills/folder/SKILL.md": "---\nname: folder\ndescription: A folder\n---\nbody\n",
      ".skills/folder/ref/notes.md": "notes\n",
    });
    consumer = makeFixture();
    host = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        const file = Bun.file(join(publisher.cwd, "site", new URL(request.url).pathname));
        return file.size > 0 ? new Response(file) : new Response("no", { status: 404 });
      },
    });
  }, 120_000);

  afterAll(() => {
    host?.stop(true);
    publisher?.cleanup();
    consumer?.cleanup();
  });

  test("publish writes a .tar.gz, and sync reads it and a .zip back file for file", async () => {
    const published = await run(binary, ["publish", "site"], publisher);
    expect(published).toMatchObject({ code: 0 });
    const root = join(publisher.cwd, "site", SITE);
    const listing = Bun.spawnSync(["tar", "tvzf", join(root, "folder.tar.gz")]).stdout.toString();
    expect(listing).toMatch(/-rw-r--r-- 0\/0 .* 1970-01-01 .* ref\/notes\.md\n/);

    const zip = new AdmZip();
    zip.addFile("SKILL.md", Buffer.from("---\nname: zipped\ndescription: Zipped\n---\nzip body\n"));
    zip.addFile("ref/x.md", Buffer.from("x".repeat(3000)));
    const zipBytes = zip.toBuffer();
    writeFileSync(join(root, "zipped.zip"), zipBytes);
    const index = JSON.parse(readFileSync(join(root, "index.json"), "utf8"));
    const digest = `sha256:${new Bun.CryptoHasher("sha256").update(zipBytes).digest("hex")}`;
    index.skills.push({ name: "zipped", description: "Zipped", type: "archive", url: "zipped.zip", digest });
    writeFileSync(join(root, "index.json"), JSON.stringify(index));

    const url = `http://127.0.0.1:${host.port}/${SITE}/`;
    writeFileSync(
      join(consumer.cwd, "skill-central.yaml"),
      `builtin: false\nlayers:\n  - { name: vendor, priority: 30, url: "${url}" }\n`,
    );
    const synced = await run(binary, ["sync"], consumer);
    expect(synced.out).not.toContain("Cannot find module");
    expect(synced).toMatchObject({ code: 0 });
    const list = await run(binary, ["list", "--json"], consumer);
    expect(JSON.parse(list.stdout).map((s: { id: string }) => s.id)).toEqual(["folder", "zipped"]);
    const cache = join(consumer.home, ".cache", "skill-central", "well-known");
    const copied = (pattern: string) => {
      const [path] = [...new Glob(pattern).scanSync({ cwd: cache, dot: true })];
      return path === undefined ? undefined : readFileSync(join(cache, path), "utf8");
    };
    expect(copied("**/folder/ref/notes.md")).toBe("notes\n");
    expect(copied("**/zipped/ref/x.md")).toBe("x".repeat(3000));
  }, 60_000);
});
