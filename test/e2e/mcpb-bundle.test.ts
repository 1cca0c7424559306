import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";
import AdmZip from "adm-zip";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { RELEASE_TARGETS } from "../../script/build.ts";
import { packReleaseForTests, releaseTestDir, type PackedRelease } from "../helpers/release.ts";
import { runBounded, runOk } from "../helpers/processes.ts";
import { connect, REPO_ROOT } from "../helpers/server.ts";

/**
 * The MCP Bundles `bun run release:pack` writes (one per release target), checked with Anthropic's
 * own tools: `mcpb validate` and `mcpb info` on each, and the linux-x64 bundle unpacked with
 * `mcpb unpack`, its mcp_config resolved with the library's getMcpConfigForManifest as a host
 * (Claude Desktop) does, and the server it names driven by the SDK's client. Shares the one pack
 * of test/e2e/release-pack.test.ts (test/helpers/release.ts).
 */

const PACK_MS = 600_000;
const ENV = { PATH: process.env.PATH ?? "", NO_COLOR: "1" };
const MCPB_CLI = join(REPO_ROOT, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
const ON_LINUX_X64 = process.platform === "linux" && process.arch === "x64";
/** In the folder the host starts the server in: served only when no --cwd is in effect. */
const WORKING_FOLDER_SKILL =
  "id: from-working-folder\ndescription: A skill of the folder the server starts in\ntype: prompt\nprompt: Hi.\n";
const GREET =
  "id: greet\ndescription: Greet someone by name\ntype: prompt\narguments:\n  - { name: who, required: true }\nprompt: Say hello to {{who}}.\n";

const mcpb = (args: string[], cwd: string) =>
  runBounded([process.execPath, MCPB_CLI, ...args], { cwd, env: ENV, timeoutMs: 120_000 });

describe("the MCP Bundles of the packed release", () => {
  let release: PackedRelease;
  let root: string;

  beforeAll(async () => {
    release = await packReleaseForTests();
    root = releaseTestDir("mcpb");
  }, PACK_MS);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("stdout lists one bundle per target after the npm files, then their SHA256SUMS, which sha256sum -c accepts", async () => {
    const names = RELEASE_TARGETS.map((t) => `skill-central-${t.name}-${pkg.version}.mcpb`);
    const npmFiles = RELEASE_TARGETS.length + 2; // the platform packages, the main package, SHA256SUMS
    expect(release.listed.slice(npmFiles)).toEqual([
      ...names.map((n) => join(release.bundleDir, n)),
      join(release.bundleDir, "SHA256SUMS"),
    ]);
    expect(readdirSync(release.bundleDir).sort()).toEqual([...names, "SHA256SUMS"].sort());
    const check = await runBounded(["sha256sum", "-c", "SHA256SUMS"], {
      cwd: release.bundleDir,
      env: ENV,
      timeoutMs: 120_000,
    });
    expect(check.stdout).toBe(names.map((n) => `${n}: OK\n`).join(""));
    expect(check.code).toBe(0);
  }, 120_000);

  test("each holds its manifest and its target's executable binary, nothing else; the manifest passes mcpb validate, the bundle mcpb info", async () => {
    for (const target of RELEASE_TARGETS) {
      const bundle = release.bundles.get(target.name)!;
      const zip = new AdmZip(bundle);
      const binary = `server/skill-central${target.exe ? ".exe" : ""}`;
      const entries = zip.getEntries();
      expect({ target: target.name, entries: entries.map((e) => e.entryName).sort() }).toEqual({
        target: target.name,
        entries: ["manifest.json", binary].sort(),
      });
      const mode = (entries.find((e) => e.entryName === binary)!.attr >>> 16) & 0o777;
      expect({ target: target.name, executable: (mode & 0o111) !== 0 }).toEqual({
        target: target.name,
        executable: true,
      });
      const manifest = JSON.parse(zip.readAsText("manifest.json"));
      expect(manifest).toMatchObject({
        name: "skill-central",
        version: pkg.version,
        server: { type: "binary", entry_point: binary },
        compatibility: { platforms: [target.os] },
      });
      const dir = join(root, "manifests", target.name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "manifest.json"), zip.readAsText("manifest.json"));

      const validated = await mcpb(["validate", join(dir, "manifest.json")], root);
      expect({ target: target.name, code: validated.code, out: validated.stdout.trim() }).toEqual({
        target: target.name,
        code: 0,
        out: "Manifest schema validation passes!",
      });
      const info = await mcpb(["info", bundle], root);
      expect({ target: target.name, code: info.code }).toEqual({ target: target.name, code: 0 });
      expect(info.stdout).toContain(`File: skill-central-${target.name}-${pkg.version}.mcpb`);
      expect(info.stdout).toContain("WARNING: Not signed"); // the tests pack without a key
    }
  }, 300_000);

  describe.skipIf(!ON_LINUX_X64)("the linux-x64 bundle installed as a host installs it", () => {
    let extension: string;
    let manifest: Parameters<typeof getMcpConfigForManifest>[0]["manifest"];
    let home: string;
    let hostCwd: string;
    let project: string;

    beforeAll(async () => {
      extension = join(root, "installed", "skill-central");
      await runOk([process.execPath, MCPB_CLI, "unpack", release.bundles.get("linux-x64")!, extension], {
        cwd: root,
        env: ENV,
        timeoutMs: 120_000,
      });
      manifest = await Bun.file(join(extension, "manifest.json")).json();
      home = join(root, "home");
      hostCwd = join(root, "host-cwd"); // where the host starts servers from
      project = join(root, "project");
      for (const dir of [home, join(hostCwd, ".skills"), join(project, ".skills")]) mkdirSync(dir, { recursive: true });
      writeFileSync(join(hostCwd, ".skills", "from-working-folder.yaml"), WORKING_FOLDER_SKILL);
      writeFileSync(join(project, ".skills", "greet.yaml"), GREET);
    }, 180_000);

    /** The command a host runs for this settings form, resolved by the mcpb library itself. */
    async function resolved(userConfig: Record<string, string>) {
      const config = await getMcpConfigForManifest({
        manifest,
        extensionPath: extension,
        systemDirs: { HOME: home, DESKTOP: join(home, "Desktop"), DOCUMENTS: join(home, "Documents") },
        userConfig,
        pathSeparator: "/",
      });
      if (!config) throw new Error("getMcpConfigForManifest resolved nothing: a required setting is missing");
      return config;
    }

    async function promptsServed(userConfig: Record<string, string>) {
      const config = await resolved(userConfig);
      const server = await connect({ name: "bundle", command: config.command, args: config.args ?? [] }, hostCwd, home);
      try {
        const { prompts } = await server.client.listPrompts();
        return { config, names: prompts.map((p) => p.name) };
      } finally {
        await server.close();
      }
    }

    test("the form left empty: the placeholder reaches the server as written, which reads it as no --cwd and serves the built-in skills", async () => {
      const served = await promptsServed({});
      expect(served.config.command).toBe(join(extension, "server", "skill-central"));
      expect(served.config.args).toEqual(["mcp", "--cwd", "${user_config.project_folder}"]);
      expect(served.names).toContain("review-pr");
      expect(served.names).not.toContain("greet");
      // As with no --cwd at all: the folder it was started in (a literal "${user_config…}" folder
      // under it, which does not exist, would serve nothing of it).
      expect(served.names).toContain("from-working-folder");
    }, 60_000);

    test("a project folder picked: the server serves its skills beside the built-in ones", async () => {
      const served = await promptsServed({ project_folder: project });
      expect(served.config.args).toEqual(["mcp", "--cwd", project]);
      expect(served.names).toContain("review-pr");
      expect(served.names).toContain("greet");
      expect(served.names).not.toContain("from-working-folder");
    }, 60_000);
  });
});
