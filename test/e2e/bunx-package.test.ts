import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { connect, REPO_ROOT, type ServerTarget } from "../helpers/server.ts";

/** `bunx` is a link to the Bun executable; `bun x` is the same command where the link is missing. */
const BUNX: ServerTarget = Bun.which("bunx") !== null
  ? { name: "bunx", command: "bunx", args: ["skill-central", "mcp"] }
  : { name: "bunx", command: process.execPath, args: ["x", "skill-central", "mcp"] };

async function run(command: string[], cwd: string): Promise<string> {
  // The real environment: installing uses the machine's package cache (offline-friendly).
  const proc = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}:\n${stdout}\n${stderr}`);
  return stdout;
}

/**
 * The package as npm would publish it: `bun pm pack`, installed from the tarball into a fresh
 * project, started the way an IDE config starts it (`bunx skill-central mcp`).
 */
describe("packed package run with bunx", () => {
  let fixture: Fixture;
  let tarball: string;

  beforeAll(async () => {
    fixture = makeFixture({
      "package.json": JSON.stringify({ name: "bunx-consumer", private: true }),
      ".skills/project-only.yaml": promptSkill("project-only"),
    });
    await run([process.execPath, "pm", "pack", "--destination", fixture.root, "--quiet"], REPO_ROOT);
    const packed = readdirSync(fixture.root).filter((f) => f.endsWith(".tgz"));
    expect(packed).toEqual([`${pkg.name}-${pkg.version}.tgz`]);
    tarball = join(fixture.root, packed[0]!);
    // Cached package metadata is used whatever its age: after `bun install` this needs no network.
    await run([process.execPath, "add", "--prefer-offline", tarball], fixture.cwd);
  }, 120_000);
  afterAll(() => fixture?.cleanup());

  test("the tarball holds the bin entry, with the Bun shebang, and every built-in skill", async () => {
    const listing = new Set((await run(["tar", "-tzf", tarball], fixture.root)).split("\n").filter(Boolean));
    expect(listing.has(`package/${pkg.bin["skill-central"]}`)).toBe(true);
    for await (const file of new Glob("skills/**/*.{yaml,yml}").scan(REPO_ROOT)) expect(listing.has(`package/${file}`)).toBe(true);
    const installedBin = Bun.file(join(fixture.cwd, "node_modules", pkg.name, pkg.bin["skill-central"]));
    expect((await installedBin.text()).startsWith("#!/usr/bin/env bun\n")).toBe(true);
  });

  test("bunx skill-central mcp initializes and lists the built-in skills and the project's .skills/", async () => {
    const session = await connect(BUNX, fixture.cwd, fixture.home);
    try {
      expect(session.client.getServerVersion()).toEqual({ name: "skill-central", version: pkg.version });
      const names = (await session.client.listPrompts()).prompts.map((p) => p.name);
      expect(names).toContain("review-pr"); // built-in, found relative to the installed package
      expect(names).toContain("project-only");
      const { tools } = await session.client.listTools();
      expect(tools.map((t) => t.name)).toContain("commit-conventions");
    } finally {
      await session.close();
    }
  });

  test("install run through bunx registers `bunx skill-central mcp`, and the check starts it in the project", async () => {
    const argv = [BUNX.command, ...BUNX.args.slice(0, -1), "install", "codex"];
    const proc = Bun.spawn(argv, { cwd: fixture.cwd, env: { ...process.env, HOME: fixture.home, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("(the installed package, with bunx)");
    const toml = await Bun.file(join(fixture.home, ".codex", "config.toml")).text();
    const entry = (Bun.TOML.parse(toml) as { mcp_servers: Record<string, { command: string; args: string[] }> }).mcp_servers["skill-central"]!;
    expect(entry.command).toMatch(/[\\/]bunx(\.exe)?$|[\\/]bun(\.exe)?$/);
    expect(entry.args).toEqual(entry.command.match(/bunx(\.exe)?$/) ? ["skill-central", "mcp"] : ["x", "skill-central", "mcp"]);
    expect(stdout).toMatch(/Codex: ok: created ~\/\.codex\/config\.toml; skill-central \S+ answered initialize/);
  }, 60_000);
});
