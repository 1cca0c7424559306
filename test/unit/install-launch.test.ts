import { expect, test } from "bun:test";
import { join } from "node:path";
import { hostFromEnv } from "../../src/install/host.ts";
import { commandLine, currentLaunch, isThisInstall, launchFrom } from "../../src/install/launch.ts";
import { REPO_ROOT } from "../helpers/server.ts";

test("a compiled binary registers its own absolute path", () => {
  expect(launchFrom({ standalone: true, execPath: "/opt/bin/skill-central", packageRoot: "/$bunfs/root", bunx: "/usr/bin/bunx" })).toEqual({ kind: "binary", command: "/opt/bin/skill-central", prefix: [] });
});

test("an installed package (bunx's cache or a project's node_modules) registers bunx skill-central", () => {
  const packageRoot = "/tmp/bunx-0-skill-central@latest/node_modules/skill-central";
  expect(launchFrom({ standalone: false, execPath: "/usr/bin/bun", packageRoot, bunx: "/usr/bin/bunx" })).toEqual({ kind: "bunx", command: "/usr/bin/bunx", prefix: ["skill-central"] });
  // No bunx link anywhere: `bun x` is the same command.
  expect(launchFrom({ standalone: false, execPath: "/usr/bin/bun", packageRoot, bunx: null })).toEqual({ kind: "bunx", command: "/usr/bin/bun", prefix: ["x", "skill-central"] });
});

test("a checkout registers bun with the checkout's src/cli.ts", () => {
  expect(launchFrom({ standalone: false, execPath: "/usr/bin/bun", packageRoot: "/home/a/src/skill-central", bunx: "/usr/bin/bunx" })).toEqual({ kind: "source", command: "/usr/bin/bun", prefix: ["/home/a/src/skill-central/src/cli.ts"] });
  // A folder merely named like node_modules is not an installed package.
  expect(launchFrom({ standalone: false, execPath: "/usr/bin/bun", packageRoot: "/home/a/node_modules_backup/skill-central", bunx: null }).kind).toBe("source");
});

test("this test process runs from the checkout", () => {
  expect(currentLaunch(hostFromEnv())).toEqual({ kind: "source", command: process.execPath, prefix: [join(REPO_ROOT, "src", "cli.ts")] });
});

test("the mcp command line, and recognising it again", () => {
  const launch = launchFrom({ standalone: false, execPath: "/usr/bin/bun", packageRoot: "/x", bunx: null });
  const line = commandLine(launch, ["--cwd", "/p"]);
  expect(line).toEqual({ command: "/usr/bin/bun", args: ["/x/src/cli.ts", "mcp", "--cwd", "/p"] });
  expect(isThisInstall(launch, line.command, line.args)).toBe(true);
  expect(isThisInstall(launch, "/usr/bin/bun", ["/y/src/cli.ts", "mcp"])).toBe(false);
  expect(isThisInstall(launch, "/usr/local/bin/bun", line.args)).toBe(false);
  expect(isThisInstall(launch, "/usr/bin/bun", ["/x/src/cli.ts", "list"])).toBe(false);
});
