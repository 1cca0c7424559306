import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { RELEASE_TARGETS } from "../../script/build.ts";
import { CONSUMER_TEST, GREETING } from "../helpers/consumer-project.ts";
import { mcpExchange, openSession } from "../helpers/jsonrpc-session.ts";
import { childPids, exitedWithin, processAlive, runBounded, runOk, type RunResult } from "../helpers/processes.ts";
import { git, packReleaseForTests, releaseTestDir, snapshotCheckout, type PackedRelease } from "../helpers/release.ts";
import { REPO_ROOT } from "../helpers/server.ts";

/**
 * `bun run release:pack` as the release manager runs it (on a committed snapshot of this tree),
 * what its tarballs hold, and the launcher in them run straight from the unpacked files, under
 * Node and under Bun. test/e2e/npm-registry.test.ts publishes the same tarballs to a registry.
 */

const HOST_TARGET = RELEASE_TARGETS.find(
  (t) => t.os === process.platform && t.cpu === process.arch && t.libc === undefined,
);
const HOST_PACKAGE = `skill-central-${HOST_TARGET?.name}`;
const PACK_MS = 600_000;
const ENV = { PATH: process.env.PATH ?? "", NO_COLOR: "1" };

async function tarListing(tarball: string): Promise<Map<string, string>> {
  const result = await runOk(["tar", "-tvzf", tarball], { cwd: REPO_ROOT, env: ENV, timeoutMs: 60_000 });
  // `-rwxr-xr-x 0/0  113981616 1985-10-26 08:15 package/bin/skill-central` → path → mode
  return new Map(
    result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => [line.split(/\s+/).pop()!, line.split(/\s+/)[0]!]),
  );
}

async function tarManifest(tarball: string): Promise<Record<string, unknown>> {
  const result = await runOk(["tar", "-xOzf", tarball, "package/package.json"], {
    cwd: REPO_ROOT,
    env: ENV,
    timeoutMs: 60_000,
  });
  return JSON.parse(result.stdout);
}

describe("release:pack refuses to pack", () => {
  let root: string;
  let checkout: string;
  let outDir: string;

  beforeAll(() => {
    root = releaseTestDir("refusals");
    checkout = snapshotCheckout(join(root, "checkout"));
    outDir = join(root, "out");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const pack = () =>
    runBounded([process.execPath, "run", "release:pack", "--out", outDir], {
      cwd: checkout,
      env: { ...process.env, NO_COLOR: "1" },
      timeoutMs: 60_000,
    });
  const expectRefused = (result: RunResult, message: string) => {
    expect(result.stderr).toContain(`release-pack: ${message}`);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(existsSync(outDir) ? readdirSync(outDir) : []).toEqual([]);
  };

  test("a tree with a modified file, naming it", async () => {
    writeFileSync(join(checkout, "README.md"), "changed\n");
    try {
      const result = await pack();
      expectRefused(result, "the working tree has uncommitted changes; commit or stash them before packing a release:");
      expect(result.stderr).toContain(" M README.md");
    } finally {
      git(checkout, "checkout", "--", "README.md");
    }
  }, 60_000);

  test("a tree with an untracked file, naming it", async () => {
    writeFileSync(join(checkout, "notes.txt"), "draft\n");
    try {
      const result = await pack();
      expectRefused(result, "the working tree has uncommitted changes");
      expect(result.stderr).toContain("?? notes.txt");
    } finally {
      rmSync(join(checkout, "notes.txt"));
    }
  }, 60_000);

  test("a commit tagged with another version than package.json's", async () => {
    git(checkout, "tag", "v9.9.9");
    try {
      expectRefused(
        await pack(),
        `HEAD is tagged v9.9.9 but package.json says ${pkg.version}; the tag and the version must agree`,
      );
    } finally {
      git(checkout, "tag", "-d", "v9.9.9");
    }
  }, 60_000);

  test("a package.json version that is not semver", async () => {
    const manifest = await Bun.file(join(checkout, "package.json")).json();
    writeFileSync(join(checkout, "package.json"), `${JSON.stringify({ ...manifest, version: "1.0" }, null, 2)}\n`);
    git(checkout, "commit", "-q", "-am", "a bad version");
    try {
      expectRefused(await pack(), 'package.json version "1.0" is not a semver version (x.y.z)');
    } finally {
      git(checkout, "reset", "-q", "--hard", "HEAD~1");
    }
  }, 60_000);
});

describe.skipIf(HOST_TARGET === undefined)("the packed release", () => {
  let release: PackedRelease;

  beforeAll(async () => {
    release = await packReleaseForTests();
  }, PACK_MS);

  test("stdout lists a tarball per target, then the main package, then SHA256SUMS, which sha256sum -c accepts", async () => {
    const names = [...RELEASE_TARGETS.map((t) => `skill-central-${t.name}`), "skill-central"];
    expect(release.listed.slice(0, names.length + 1)).toEqual([
      ...names.map((n) => join(release.outDir, `${n}-${pkg.version}.tgz`)),
      join(release.outDir, "SHA256SUMS"),
    ]);
    expect(readdirSync(release.outDir).sort()).toEqual(
      [...names.map((n) => `${n}-${pkg.version}.tgz`), "SHA256SUMS"].sort(),
    );
    const check = await runBounded(["sha256sum", "-c", "SHA256SUMS"], {
      cwd: release.outDir,
      env: ENV,
      timeoutMs: 120_000,
    });
    expect(check.stdout).toBe(names.map((n) => `${n}-${pkg.version}.tgz: OK\n`).join(""));
    expect(check.code).toBe(0);
  }, 120_000);

  test("packing left the checkout clean and took nothing from outside it", () => {
    expect(git(release.checkout, "status", "--porcelain", "--untracked-files=all")).toBe("");
  });

  test("each platform package holds only its executable binary, with os, cpu and (for musl) libc set", async () => {
    for (const target of RELEASE_TARGETS) {
      const name = `skill-central-${target.name}`;
      const tarball = release.tarballs.get(name)!;
      const binary = `package/bin/skill-central${target.exe ? ".exe" : ""}`;
      const listing = await tarListing(tarball);
      expect({ name, files: [...listing.keys()].sort() }).toEqual({
        name,
        files: [binary, "package/README.md", "package/package.json"].sort(),
      });
      expect({ name, mode: listing.get(binary) }).toEqual({ name, mode: "-rwxr-xr-x" });
      const manifest = await tarManifest(tarball);
      expect(manifest).toMatchObject({
        name,
        version: pkg.version,
        os: [target.os],
        cpu: [target.cpu],
        license: pkg.license,
      });
      expect({ name, libc: manifest.libc }).toEqual({ name, libc: target.libc ? [target.libc] : undefined });
      expect(manifest.bin).toBeUndefined(); // only the main package puts a command on PATH
    }
  }, 120_000);

  test("the main package: the launcher, the API's sources, the built-in skills, and nothing of the tests or scripts", async () => {
    const tarball = release.tarballs.get("skill-central")!;
    const listing = await tarListing(tarball);
    const files = [...listing.keys()].map((f) => f.replace(/^package\//, ""));
    expect(listing.get("package/bin/skill-central.js")).toBe("-rwxr-xr-x");
    for await (const skill of new Glob("skills/**/*").scan(REPO_ROOT)) expect(files).toContain(skill);
    const sources = files.filter((f) => f.startsWith("src/"));
    expect(sources).toContain("src/api.ts");
    expect(sources).toContain("src/diagnostics.ts"); // reached only through `import type`: consumers' type-checkers need it
    for (const file of sources)
      expect({ file, inRepo: existsSync(join(REPO_ROOT, file)) }).toEqual({ file, inRepo: true });
    // The server's own parts are in the binary, not here.
    expect(
      sources.filter((f) => f.startsWith("src/mcp/") || f.startsWith("src/commands/") || f === "src/cli.ts"),
    ).toEqual([]);
    expect(files.filter((f) => !/^(src|skills)\//.test(f)).sort()).toEqual([
      "README.md",
      "bin/skill-central.js",
      "package.json",
    ]);
  }, 60_000);

  test("the main manifest: launcher bin, API export, the API's dependencies only, every target pinned to this version", async () => {
    const manifest = await tarManifest(release.tarballs.get("skill-central")!);
    expect(manifest).toMatchObject({
      name: "skill-central",
      version: pkg.version,
      type: "module",
      bin: { "skill-central": "bin/skill-central.js" },
      exports: { ".": "./src/api.ts", "./package.json": "./package.json" },
      engines: { node: ">=18", bun: pkg.engines.bun },
    });
    expect(manifest.optionalDependencies).toEqual(
      Object.fromEntries(RELEASE_TARGETS.map((t) => [`skill-central-${t.name}`, pkg.version])),
    );
    const dependencies = manifest.dependencies as Record<string, string>;
    expect(Object.keys(dependencies).sort()).toEqual([
      "handlebars",
      "jsonc-parser",
      "redos-detector",
      "tar", // audit.layers: all audits local skills at load; a folder's digest is its .tar.gz's
      "typebox",
      "unicode-confusables", // the audit folds look-alikes (src/audit/normalise.ts)
      "yaml",
    ]);
    for (const [name, range] of Object.entries(dependencies))
      expect(range).toBe((pkg.dependencies as Record<string, string>)[name]!);
    expect(manifest.private).toBeUndefined();
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
  }, 60_000);

  test("the launcher is plain JavaScript with the shebang npx and bunx both run", async () => {
    const listing = await runOk(
      ["tar", "-xOzf", release.tarballs.get("skill-central")!, "package/bin/skill-central.js"],
      { cwd: REPO_ROOT, env: ENV, timeoutMs: 60_000 },
    );
    expect(listing.stdout.startsWith("#!/usr/bin/env node\n")).toBe(true);
    // Node parses it as an ES module without running it.
    const check = await runBounded(["node", "--check", "--input-type=module"], {
      cwd: REPO_ROOT,
      env: ENV,
      timeoutMs: 30_000,
      stdin: listing.stdout.replace(/^#!.*\n/, ""),
    });
    expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: "" });
  }, 60_000);

  describe("the launcher, run from the unpacked packages", () => {
    let root: string;
    let project: string;

    /** node_modules as an installer lays it out: the main package and, unless told, this machine's. */
    const layout = async (
      name: string,
      options: {
        platform?: boolean;
        editMain?: (m: Record<string, unknown>) => void;
        editPlatform?: (m: Record<string, unknown>) => void;
      } = {},
    ) => {
      const dir = join(root, name);
      const main = join(dir, "node_modules", "skill-central");
      mkdirSync(main, { recursive: true });
      await runOk(["tar", "-xzf", release.tarballs.get("skill-central")!, "-C", main, "--strip-components=1"], {
        cwd: dir,
        env: ENV,
        timeoutMs: 60_000,
      });
      if (options.platform !== false) {
        const platform = join(dir, "node_modules", HOST_PACKAGE);
        mkdirSync(platform, { recursive: true });
        await runOk(["tar", "-xzf", release.tarballs.get(HOST_PACKAGE)!, "-C", platform, "--strip-components=1"], {
          cwd: dir,
          env: ENV,
          timeoutMs: 60_000,
        });
        if (options.editPlatform) {
          const manifest = await Bun.file(join(platform, "package.json")).json();
          options.editPlatform(manifest);
          writeFileSync(join(platform, "package.json"), JSON.stringify(manifest));
        }
      }
      if (options.editMain) {
        const manifest = await Bun.file(join(main, "package.json")).json();
        options.editMain(manifest);
        writeFileSync(join(main, "package.json"), JSON.stringify(manifest));
      }
      return {
        launcher: join(main, "bin", "skill-central.js"),
        binary: join(dir, "node_modules", HOST_PACKAGE, "bin", "skill-central"),
      };
    };
    let installed: { launcher: string; binary: string };

    beforeAll(async () => {
      root = releaseTestDir("launcher");
      project = join(root, "project");
      mkdirSync(join(project, ".skills"), { recursive: true });
      writeFileSync(join(project, ".skills", "greeting.yaml"), GREETING);
      installed = await layout("installed");
    }, 120_000);
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    const env = (extra: Record<string, string> = {}) => ({
      HOME: join(root, "home"),
      PATH: process.env.PATH ?? "",
      NO_COLOR: "1",
      ...extra,
    });
    const run = (command: string[], extra: Record<string, string> = {}) =>
      runBounded(command, { cwd: project, env: env(extra), timeoutMs: 60_000 });

    test("under Node and under Bun, the same arguments give the binary's stdout, stderr and exit code", async () => {
      for (const args of [
        ["--version"],
        ["list", "--json"],
        ["render", "greeting", "--arg", "who=Ada"],
        ["no-such-command"],
        ["render", "greeting"],
      ]) {
        const direct = await run([installed.binary, ...args]);
        for (const runtime of ["node", process.execPath]) {
          const launched = await run([runtime, installed.launcher, ...args]);
          expect({ args, runtime, code: launched.code, stdout: launched.stdout, stderr: launched.stderr }).toEqual({
            args,
            runtime,
            code: direct.code,
            stdout: direct.stdout,
            stderr: direct.stderr,
          });
        }
      }
      expect((await run([installed.binary, "no-such-command"])).code).toBe(2); // the comparison covered a failing exit code
    }, 120_000);

    test("runs as an executable through its shebang, as npm's bin link does", async () => {
      const result = await run([installed.launcher, "--version"]);
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: `${pkg.version}\n` });
    }, 60_000);

    test("carries an MCP session with only JSON-RPC on stdout, under Node and under Bun", async () => {
      for (const runtime of ["node", process.execPath]) {
        const check = await mcpExchange([runtime, installed.launcher, "mcp"], {
          cwd: project,
          env: env(),
          firstTimeoutMs: 30_000,
        });
        expect({ runtime, ...check }).toMatchObject({
          runtime,
          serverInfo: { name: "skill-central", version: pkg.version },
          toolText: "feat(cli): add x",
          exitCode: 0,
          strayLines: [],
        });
        expect(check.prompts).toContain("greeting");
      }
    }, 120_000);

    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      test(`passes ${signal} on to the server and exits as it does`, async () => {
        const session = openSession(["node", installed.launcher, "mcp"], {
          cwd: project,
          env: env(),
          timeoutMs: 30_000,
        });
        try {
          await session.request("initialize", {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "0" },
          });
          const children = await childPids(session.proc.pid);
          expect(children).toHaveLength(1);
          const server = children[0]!;
          session.proc.kill(signal); // the launcher only, not its process group
          const code = await exitedWithin(session.proc, 15_000, "launcher");
          // The server drains and ends cleanly on each of them (exit 0), and the launcher with it.
          expect(code).toBe(0);
          expect(processAlive(server)).toBe(false);
        } finally {
          session.kill();
        }
      }, 60_000);
    }

    test("a server killed by a signal ends the launcher with that signal", async () => {
      const session = openSession(["node", installed.launcher, "mcp"], { cwd: project, env: env(), timeoutMs: 30_000 });
      try {
        await session.request("initialize", {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "t", version: "0" },
        });
        const [server] = await childPids(session.proc.pid);
        process.kill(server!, "SIGKILL");
        await exitedWithin(session.proc, 15_000, "launcher");
        expect(session.proc.signalCode).toBe("SIGKILL");
      } finally {
        session.kill();
      }
    }, 60_000);

    test("without the platform package: one line naming the platform and the package to install, exit 1", async () => {
      const { launcher } = await layout("no-platform", { platform: false });
      for (const runtime of ["node", process.execPath]) {
        const result = await run([runtime, launcher, "mcp"]);
        expect({ runtime, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
          runtime,
          code: 1,
          stdout: "",
          stderr: `skill-central: the binary for ${HOST_TARGET!.name} is not installed: install ${HOST_PACKAGE}@${pkg.version} (was it skipped with --omit=optional or --no-optional?)\n`,
        });
      }
    }, 60_000);

    test("on a platform with no package: one line naming it and the platforms there are", async () => {
      const { launcher } = await layout("unsupported", {
        platform: false,
        editMain: (m) => {
          delete (m.optionalDependencies as Record<string, string>)[HOST_PACKAGE];
        },
      });
      const result = await run(["node", launcher, "--version"]);
      const others = RELEASE_TARGETS.filter((t) => t !== HOST_TARGET)
        .map((t) => t.name)
        .join(", ");
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 1,
        stdout: "",
        stderr: `skill-central: no prebuilt binary for ${HOST_TARGET!.name} (there are: ${others}); build one from a checkout with \`bun run build\` and set SKILL_CENTRAL_BINARY to its path\n`,
      });
    }, 60_000);

    test("a platform package of another version is refused, naming the version to install", async () => {
      const { launcher } = await layout("mismatch", {
        editPlatform: (m) => {
          m.version = "0.0.1";
        },
      });
      const result = await run(["node", launcher, "--version"]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 1,
        stderr: `skill-central: ${HOST_PACKAGE} is 0.0.1 but skill-central is ${pkg.version}: install ${HOST_PACKAGE}@${pkg.version}\n`,
      });
    }, 60_000);

    test("SKILL_CENTRAL_BINARY runs the binary it names, with no platform package needed", async () => {
      const { launcher } = await layout("override", { platform: false });
      const result = await run(["node", launcher, "--version"], { SKILL_CENTRAL_BINARY: installed.binary });
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: `${pkg.version}\n` });
      const missing = await run(["node", launcher, "--version"], { SKILL_CENTRAL_BINARY: join(root, "nothing-here") });
      expect({ code: missing.code, stdout: missing.stdout, stderr: missing.stderr }).toEqual({
        code: 127,
        stdout: "",
        stderr: `skill-central: cannot run ${join(root, "nothing-here")}: spawn ${join(root, "nothing-here")} ENOENT\n`,
      });
    }, 60_000);

    test("a binary that lost its executable bit is made executable again", async () => {
      const { launcher, binary } = await layout("no-exec-bit");
      chmodSync(binary, 0o644);
      const result = await run(["node", launcher, "--version"]);
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: `${pkg.version}\n` });
      expect(statSync(binary).mode & 0o111).not.toBe(0);
    }, 60_000);
  });

  describe("installed from the tarballs, before the package is published (docs/install.md)", () => {
    let root: string;
    let project: string;
    let added: RunResult;

    beforeAll(async () => {
      root = releaseTestDir("tarball-install");
      project = join(root, "project");
      mkdirSync(join(project, ".skills"), { recursive: true });
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "skills-consumer", private: true }));
      writeFileSync(join(project, ".skills", "greeting.yaml"), GREETING);
      writeFileSync(join(project, "skills.test.ts"), CONSUMER_TEST);
      // The other targets' packages are looked up on the public registry and not found (404): a
      // warning, as for any optional dependency that cannot be installed.
      added = await runBounded(
        [
          process.execPath,
          "add",
          "-d",
          "--prefer-offline",
          release.tarballs.get("skill-central")!,
          release.tarballs.get(HOST_PACKAGE)!,
        ],
        {
          cwd: project,
          env: { ...process.env, NO_COLOR: "1" },
          timeoutMs: 300_000,
        },
      );
    }, PACK_MS);
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    test("bun add -d of the main and this machine's tarball installs both", () => {
      expect({ code: added.code, stderr: added.code === 0 ? "" : added.stderr }).toEqual({ code: 0, stderr: "" });
      expect(existsSync(join(project, "node_modules", "skill-central", "bin", "skill-central.js"))).toBe(true);
      expect(existsSync(join(project, "node_modules", HOST_PACKAGE, "bin", "skill-central"))).toBe(true);
    });

    test("the author's bun test passes against it, and its command runs the binary", async () => {
      const tests = await runBounded([process.execPath, "test", "skills.test.ts"], {
        cwd: project,
        env: { PATH: process.env.PATH, HOME: join(root, "home"), NO_COLOR: "1" },
        timeoutMs: 120_000,
      });
      expect(tests.stdout + tests.stderr).toContain(" 4 pass");
      expect(tests.code).toBe(0);
      const version = await runBounded([join(project, "node_modules", ".bin", "skill-central"), "--version"], {
        cwd: project,
        env: ENV,
        timeoutMs: 30_000,
      });
      expect({ code: version.code, stdout: version.stdout }).toEqual({ code: 0, stdout: `${pkg.version}\n` });
    }, 180_000);
  });
});
