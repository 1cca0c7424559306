import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { RELEASE_TARGETS } from "../../script/build.ts";
import { mcpExchange, type McpCheck } from "../helpers/jsonrpc-session.ts";
import { CONSUMER_TEST, GREETING, WRONG_TEST } from "../helpers/consumer-project.ts";
import { distinctLaunches, fillPlaceholders, pageLaunches, type Launch } from "../helpers/ide-snippets.ts";
import { packReleaseForTests, releaseTestDir, type PackedRelease } from "../helpers/release.ts";
import { runBounded, runOk, type RunResult } from "../helpers/processes.ts";
import { REPO_ROOT } from "../helpers/server.ts";
import {
  startVerdaccio,
  VERDACCIO_BIN,
  VERDACCIO_INSTALL,
  verdaccioInstalled,
  type Registry,
} from "../helpers/verdaccio.ts";

/**
 * The release as a user meets it: every tarball `bun run release:pack` writes is published to a
 * real npm registry (Verdaccio on 127.0.0.1), and a clean project with a clean HOME, the registry
 * configured and nothing of this checkout on PATH, installs and runs it: `npx -y skill-central`,
 * `bunx skill-central`, `bun add -d skill-central` + `bun test`, and npx again on a PATH with Node
 * and npm but no Bun. Each server is driven with raw newline-delimited JSON-RPC, as an IDE would.
 *
 * Verdaccio comes from .ci/tools (installed by .ci/run). Without it these tests are skipped with a
 * loud message, except under CI=true, where its absence fails.
 */

const HOST_TARGET = RELEASE_TARGETS.find(
  (t) => t.os === process.platform && t.cpu === process.arch && t.libc === undefined,
);
const ON_CI = process.env.CI === "true";
const HAVE_VERDACCIO = verdaccioInstalled();

/** Generous bounds: the first npx/bunx run downloads the ~50 MB platform package through the registry. */
const INSTALL_MS = 240_000;
const TEST_MS = 600_000;

const timings: [string, number][] = [];
async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings.push([label, performance.now() - started]);
  }
}

const PROJECT_SKILL =
  "id: project-only\ndescription: A skill of the consumer project\ntype: prompt\nprompt: Body of project-only\n";

/**
 * A machine as a user has it: a HOME, a project folder, a temp folder, and a PATH of one folder
 * holding links to exactly the tools given (never the checkout, never a skill-central binary).
 */
interface Machine {
  home: string;
  project: string;
  path: string;
  env: Record<string, string>;
}

function which(tool: string): string {
  const found = tool === "bun" || tool === "bunx" ? process.execPath : Bun.which(tool);
  if (!found) throw new Error(`${tool} is not on PATH`);
  return found;
}

function makeMachine(root: string, name: string, tools: string[], registry: Registry): Machine {
  const base = join(root, name);
  const [home, project, bin, tmp] = ["home", "project", "bin", "tmp"].map((d) => join(base, d));
  for (const dir of [home, project, bin, tmp]) mkdirSync(dir!, { recursive: true });
  // `bunx` is the Bun executable under another name; Bun looks at the name it was started by.
  for (const tool of tools) symlinkSync(which(tool), join(bin!, tool));
  // The registry as users configure one: ~/.npmrc for npm and Bun alike, and the environment.
  writeFileSync(join(home!, ".npmrc"), `registry=${registry.url}\nupdate-notifier=false\nfund=false\naudit=false\n`);
  writeFileSync(join(project!, "package.json"), JSON.stringify({ name: `consumer-${name}`, private: true }, null, 2));
  mkdirSync(join(project!, ".skills"), { recursive: true });
  writeFileSync(join(project!, ".skills", "project-only.yaml"), PROJECT_SKILL);
  return {
    home: home!,
    project: project!,
    path: bin!,
    env: {
      HOME: home!,
      PATH: bin!,
      TMPDIR: tmp!,
      NPM_CONFIG_REGISTRY: registry.url,
      NPM_CONFIG_UPDATE_NOTIFIER: "false",
      NO_COLOR: "1",
    },
  };
}

function expectServedFromRegistry(check: McpCheck): void {
  expect(check.serverInfo).toEqual({ name: "skill-central", version: pkg.version });
  expect(check.tools).toContain("commit-conventions");
  expect(check.tools).toContain("changelog-entry");
  expect(check.toolText).toBe("feat(cli): add x");
  expect(check.prompts).toContain("review-pr"); // built in: embedded in the platform package's binary
  expect(check.prompts).toContain("project-only"); // the project's .skills/, found from the folder npx runs in
  expect(check.strayLines).toEqual([]);
  expect(check.exitCode).toBe(0);
}

/** The packages an installer put under `node_modules` folders below `dir`, by name. */
function installedPackages(dir: string): Set<string> {
  const names = new Set<string>();
  for (const path of new Glob("**/node_modules/*/package.json").scanSync({
    cwd: dir,
    dot: true,
    followSymlinks: false,
  })) {
    names.add(path.split("/").slice(-2, -1)[0]!);
  }
  for (const path of new Glob("**/node_modules/@*/*/package.json").scanSync({
    cwd: dir,
    dot: true,
    followSymlinks: false,
  })) {
    names.add(path.split("/").slice(-3, -1).join("/"));
  }
  return names;
}

if (!HAVE_VERDACCIO) {
  const message = `npm registry tests: Verdaccio is not installed at ${VERDACCIO_BIN}; run \`${VERDACCIO_INSTALL}\` (.ci/run does)`;
  if (ON_CI) {
    test("Verdaccio is installed (required under CI=true)", () => {
      throw new Error(message);
    });
  } else {
    process.stderr.write(`\n${"!".repeat(100)}\n!!! SKIPPED ${message}\n${"!".repeat(100)}\n\n`);
  }
}

describe.skipIf(!HAVE_VERDACCIO || HOST_TARGET === undefined)(
  "the packed release, published to a local registry",
  () => {
    let release: PackedRelease;
    let root: string;
    let registry: Registry;

    beforeAll(async () => {
      release = await packReleaseForTests(); // timed by the helper: another test file may have packed already
      root = releaseTestDir("registry");
      registry = await timed("start Verdaccio", () => startVerdaccio(join(root, "verdaccio")));
      // Publishing is `npm publish <tarball>`, as RELEASING.md says. The registry takes anonymous
      // publishes of skill-central*, but npm will not send one without some token.
      const publisher = join(root, "publisher");
      mkdirSync(publisher, { recursive: true });
      writeFileSync(
        join(publisher, ".npmrc"),
        `registry=${registry.url}\n${registry.nerfDart}:_authToken=anonymous-test-publisher\n`,
      );
      await timed("npm publish (7 tarballs)", async () => {
        for (const tarball of release.tarballs.values()) {
          await runOk(["npm", "publish", tarball, "--registry", registry.url], {
            cwd: publisher,
            env: { PATH: process.env.PATH, HOME: publisher, NPM_CONFIG_UPDATE_NOTIFIER: "false" },
            timeoutMs: 180_000,
          });
        }
      });
    }, TEST_MS);

    afterAll(async () => {
      await registry?.stop();
      if (root && !process.env.KEEP_RELEASE_TEST) rmSync(root, { recursive: true, force: true });
      if (timings.length > 0)
        process.stderr.write(
          `npm registry test timings: ${timings.map(([l, ms]) => `${l} ${(ms / 1000).toFixed(1)} s`).join("; ")}\n`,
        );
    });

    test("the registry serves every package at the release version, byte for byte the packed tarball", async () => {
      expect([...release.tarballs.keys()].sort()).toEqual(
        ["skill-central", ...RELEASE_TARGETS.map((t) => `skill-central-${t.name}`)].sort(),
      );
      for (const [name, tarball] of release.tarballs) {
        const doc = (await (await fetch(`${registry.url}${name}`, { signal: AbortSignal.timeout(30_000) })).json()) as {
          "dist-tags": { latest: string };
          versions: Record<string, { dist: { integrity: string; tarball: string } }>;
        };
        expect({ name, latest: doc["dist-tags"].latest }).toEqual({ name, latest: pkg.version });
        const integrity = `sha512-${new Bun.CryptoHasher("sha512").update(await Bun.file(tarball).bytes()).digest("base64")}`;
        expect({ name, integrity: doc.versions[pkg.version]?.dist.integrity }).toEqual({ name, integrity });
      }
    }, 60_000);

    describe("on a machine with Node, npm and Bun", () => {
      let machine: Machine;
      beforeAll(() => {
        machine = makeMachine(root, "with-bun", ["node", "npm", "npx", "sh", "bun", "bunx"], registry);
      });

      test("nothing called skill-central is on its PATH, and the checkout is not on it", () => {
        expect(Bun.which("skill-central", { PATH: machine.path })).toBeNull();
        expect(machine.path.startsWith(REPO_ROOT)).toBe(false);
        expect(readdirSync(machine.path).sort()).toEqual(["bun", "bunx", "node", "npm", "npx", "sh"]);
      });

      test(
        "npx -y skill-central --version prints the version",
        async () => {
          const result = await timed("npx -y skill-central --version (first run: install)", () =>
            runBounded(["npx", "-y", "skill-central", "--version"], {
              cwd: machine.project,
              env: machine.env,
              timeoutMs: INSTALL_MS,
            }),
          );
          expect({ stdout: result.stdout, code: result.code }).toEqual({ stdout: `${pkg.version}\n`, code: 0 });
          const again = await timed("npx -y skill-central --version (cached)", () =>
            runBounded(["npx", "-y", "skill-central", "--version"], {
              cwd: machine.project,
              env: machine.env,
              timeoutMs: INSTALL_MS,
            }),
          );
          expect({ stdout: again.stdout, code: again.code }).toEqual({ stdout: `${pkg.version}\n`, code: 0 });
        },
        TEST_MS,
      );

      test("npx installed the main package and this machine's platform package, not the others and not the MCP SDK", () => {
        const installed = installedPackages(join(machine.home, ".npm", "_npx"));
        expect(installed.has("skill-central")).toBe(true);
        expect(installed.has(`skill-central-${HOST_TARGET!.name}`)).toBe(true);
        const otherTargets = RELEASE_TARGETS.filter((t) => t !== HOST_TARGET).map((t) => `skill-central-${t.name}`);
        expect(otherTargets.filter((name) => installed.has(name))).toEqual([]);
        expect(installed.has("@modelcontextprotocol/sdk")).toBe(false);
      });

      test(
        "npx -y skill-central mcp serves an MCP session",
        async () => {
          const check = await timed("npx -y skill-central mcp (cached)", () =>
            mcpExchange(["npx", "-y", "skill-central", "mcp"], {
              cwd: machine.project,
              env: machine.env,
              firstTimeoutMs: INSTALL_MS,
            }),
          );
          expectServedFromRegistry(check);
        },
        TEST_MS,
      );

      test(
        "bunx skill-central mcp serves an MCP session",
        async () => {
          const check = await timed("bunx skill-central mcp (first run: install)", () =>
            mcpExchange(["bunx", "skill-central", "mcp"], {
              cwd: machine.project,
              env: machine.env,
              firstTimeoutMs: INSTALL_MS,
            }),
          );
          expectServedFromRegistry(check);
        },
        TEST_MS,
      );

      describe("bun add -d skill-central, then the author's bun test", () => {
        let added: RunResult;
        beforeAll(async () => {
          writeFileSync(join(machine.project, ".skills", "greeting.yaml"), GREETING);
          writeFileSync(join(machine.project, "skills.test.ts"), CONSUMER_TEST);
          added = await timed("bun add -d skill-central", () =>
            runOk(["bun", "add", "-d", "skill-central"], {
              cwd: machine.project,
              env: machine.env,
              timeoutMs: INSTALL_MS,
            }),
          );
        }, TEST_MS);

        test("the package is a dev dependency at the release version, with this machine's binary beside it", async () => {
          expect(added.code).toBe(0);
          const manifest = await Bun.file(join(machine.project, "package.json")).json();
          expect(manifest.devDependencies).toEqual({ "skill-central": expect.stringContaining(pkg.version) });
          const installed = installedPackages(machine.project);
          expect(installed.has(`skill-central-${HOST_TARGET!.name}`)).toBe(true);
          const otherTargets = RELEASE_TARGETS.filter((t) => t !== HOST_TARGET).map((t) => `skill-central-${t.name}`);
          expect(otherTargets.filter((name) => installed.has(name))).toEqual([]);
          expect(installed.has("@modelcontextprotocol/sdk")).toBe(false);
        });

        test(
          "the author's tests pass against the installed package",
          async () => {
            const result = await timed("consumer bun test", () =>
              runBounded(["bun", "test", "skills.test.ts"], {
                cwd: machine.project,
                env: machine.env,
                timeoutMs: 120_000,
              }),
            );
            const output = result.stdout + result.stderr;
            expect(output).toContain(" 4 pass");
            expect(output).toContain(" 0 fail");
            expect(result.code).toBe(0);
          },
          TEST_MS,
        );

        test(
          "a wrong expectation fails the run",
          async () => {
            writeFileSync(join(machine.project, "wrong.test.ts"), WRONG_TEST);
            const result = await runBounded(["bun", "test", "wrong.test.ts"], {
              cwd: machine.project,
              env: machine.env,
              timeoutMs: 120_000,
            });
            const output = result.stdout + result.stderr;
            expect(result.code).toBe(1);
            expect(output).toContain(" 1 fail");
            expect(output).toContain('"fix: not what it returns"');
          },
          TEST_MS,
        );

        test(
          "in the project that has it as a dev dependency, bunx and npx run the server",
          async () => {
            for (const command of [
              ["bunx", "skill-central", "mcp"],
              ["npx", "-y", "skill-central", "mcp"],
            ]) {
              expectServedFromRegistry(
                await mcpExchange(command, { cwd: machine.project, env: machine.env, firstTimeoutMs: INSTALL_MS }),
              );
            }
          },
          TEST_MS,
        );
      });
    });

    describe("on a machine with Node and npm but no Bun", () => {
      let machine: Machine;
      beforeAll(() => {
        // sh: npx runs the package's bin through it.
        machine = makeMachine(root, "node-only", ["node", "npm", "npx", "sh"], registry);
      });

      test("neither bun nor skill-central is on its PATH", () => {
        expect(Bun.which("bun", { PATH: machine.path })).toBeNull();
        expect(Bun.which("bunx", { PATH: machine.path })).toBeNull();
        expect(Bun.which("skill-central", { PATH: machine.path })).toBeNull();
      });

      test(
        "npx -y skill-central --version prints the version",
        async () => {
          const result = await timed("npx --version without Bun (first run: install)", () =>
            runBounded(["npx", "-y", "skill-central", "--version"], {
              cwd: machine.project,
              env: machine.env,
              timeoutMs: INSTALL_MS,
            }),
          );
          expect({ stdout: result.stdout, code: result.code }).toEqual({ stdout: `${pkg.version}\n`, code: 0 });
        },
        TEST_MS,
      );

      test(
        "npx -y skill-central mcp serves an MCP session",
        async () => {
          const check = await timed("npx mcp without Bun", () =>
            mcpExchange(["npx", "-y", "skill-central", "mcp"], {
              cwd: machine.project,
              env: machine.env,
              firstTimeoutMs: INSTALL_MS,
            }),
          );
          expectServedFromRegistry(check);
        },
        TEST_MS,
      );

      test(
        "npx with --omit=optional gets the one-line error naming the platform and the package to install",
        async () => {
          const result = await runBounded(
            ["npx", "-y", "--omit=optional", "--cache", join(machine.home, "omit-cache"), "skill-central", "--version"],
            {
              cwd: machine.project,
              env: { ...machine.env, npm_config_cache: join(machine.home, "omit-cache") },
              timeoutMs: INSTALL_MS,
            },
          );
          expect(result.code).toBe(1);
          expect(result.stdout).toBe("");
          const expected = `skill-central: the binary for ${HOST_TARGET!.name} is not installed: install skill-central-${HOST_TARGET!.name}@${pkg.version}`;
          expect(result.stderr).toContain(expected);
          expect(result.stderr.split("\n").filter((line) => line.startsWith("skill-central:"))).toHaveLength(1);
        },
        TEST_MS,
      );
    });

    describe("on a machine with Bun but no Node", () => {
      let machine: Machine;
      beforeAll(() => {
        machine = makeMachine(root, "bun-only", ["bun", "bunx"], registry);
      });

      test(
        "bunx skill-central mcp runs the launcher's #!/usr/bin/env node line with Bun and serves an MCP session",
        async () => {
          expect(Bun.which("node", { PATH: machine.path })).toBeNull();
          const check = await timed("bunx mcp without Node (first run: install)", () =>
            mcpExchange(["bunx", "skill-central", "mcp"], {
              cwd: machine.project,
              env: machine.env,
              firstTimeoutMs: INSTALL_MS,
            }),
          );
          expectServedFromRegistry(check);
        },
        TEST_MS,
      );
    });

    describe("docs/install-ides.md's npx and bunx command lines, placeholders filled in", () => {
      let launches: Launch[];
      let machine: Machine;
      beforeAll(async () => {
        const shown = await pageLaunches();
        expect(shown.problems).toEqual([]);
        launches = distinctLaunches(shown.launches, ["npx", "bunx"]);
        machine = makeMachine(root, "readme", ["node", "npm", "npx", "sh", "bun", "bunx"], registry);
      });

      test(
        "each starts the server from the registry",
        async () => {
          expect(launches.map((l) => l.kind)).toContain("npx");
          for (const launch of launches) {
            const command = [launch.command, ...fillPlaceholders(launch.args, machine.project)];
            const check = await mcpExchange(command, {
              cwd: machine.home,
              env: machine.env,
              firstTimeoutMs: INSTALL_MS,
            });
            expect({ where: launch.where, server: check.serverInfo.name, exit: check.exitCode }).toEqual({
              where: launch.where,
              server: "skill-central",
              exit: 0,
            });
            // With --cwd the project's skills are found wherever the IDE starts the server.
            if (command.includes("--cwd"))
              expect({ where: launch.where, prompts: check.prompts }).toEqual({
                where: launch.where,
                prompts: expect.arrayContaining(["project-only"]),
              });
          }
        },
        TEST_MS,
      );
    });
  },
);
