import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostFromEnv } from "../../src/install/host.ts";
import { asFoundOnPath, commandLine, currentLaunch, isThisInstall, launchFrom } from "../../src/install/launch.ts";
import { REPO_ROOT } from "../helpers/server.ts";

test("a compiled binary registers its own absolute path", () => {
  expect(
    launchFrom({
      standalone: true,
      execPath: "/opt/bin/skill-central",
      packageRoot: "/$bunfs/root",
      bunx: "/usr/bin/bunx",
    }),
  ).toEqual({ kind: "binary", command: "/opt/bin/skill-central", prefix: [] });
});

test("an installed package (bunx's cache or a project's node_modules) registers bunx skill-central", () => {
  const packageRoot = "/tmp/bunx-0-skill-central@latest/node_modules/skill-central";
  expect(launchFrom({ standalone: false, execPath: "/usr/bin/bun", packageRoot, bunx: "/usr/bin/bunx" })).toEqual({
    kind: "bunx",
    command: "/usr/bin/bunx",
    prefix: ["skill-central"],
  });
  // No bunx link anywhere: `bun x` is the same command.
  expect(launchFrom({ standalone: false, execPath: "/usr/bin/bun", packageRoot, bunx: null })).toEqual({
    kind: "bunx",
    command: "/usr/bin/bun",
    prefix: ["x", "skill-central"],
  });
});

test("a checkout registers bun with the checkout's src/cli.ts", () => {
  expect(
    launchFrom({
      standalone: false,
      execPath: "/usr/bin/bun",
      packageRoot: "/home/a/src/skill-central",
      bunx: "/usr/bin/bunx",
    }),
  ).toEqual({ kind: "source", command: "/usr/bin/bun", prefix: ["/home/a/src/skill-central/src/cli.ts"] });
  // A folder merely named like node_modules is not an installed package.
  expect(
    launchFrom({
      standalone: false,
      execPath: "/usr/bin/bun",
      packageRoot: "/home/a/node_modules_backup/skill-central",
      bunx: null,
    }).kind,
  ).toBe("source");
});

test("this test process runs from the checkout, with bun as found on PATH when that is this Bun", () => {
  const onPath = Bun.which("bun");
  const command = onPath && realpathSync(onPath) === realpathSync(process.execPath) ? onPath : process.execPath;
  expect(currentLaunch(hostFromEnv())).toEqual({ kind: "source", command, prefix: [join(REPO_ROOT, "src", "cli.ts")] });
});

describe("the executable as found on PATH, not the path behind its links", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "skill-central-launch-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** npm's global layout: bin/bun → ../lib/node_modules/bun/bin/bun.exe, and bunx.exe a hard link of it. */
  function npmLayout(): { bin: string; exe: string } {
    const pkg = join(dir, "lib", "node_modules", "bun", "bin");
    mkdirSync(pkg, { recursive: true });
    mkdirSync(join(dir, "bin"));
    const exe = join(pkg, "bun.exe");
    writeFileSync(exe, "#!/bin/sh\n", { mode: 0o755 });
    linkSync(exe, join(pkg, "bunx.exe"));
    symlinkSync("../lib/node_modules/bun/bin/bun.exe", join(dir, "bin", "bun"));
    symlinkSync("../lib/node_modules/bun/bin/bunx.exe", join(dir, "bin", "bunx"));
    return { bin: join(dir, "bin"), exe };
  }
  const which = (path: string) => (name: string) => Bun.which(name, { PATH: path });

  test("npm's global bun: the link on PATH is registered, not bun.exe inside the package", () => {
    const { bin, exe } = npmLayout();
    expect(asFoundOnPath(exe, ["bun"], which(bin))).toBe(join(bin, "bun"));
  });

  test("a chain of links (a version manager's shim folder) is registered at its start", () => {
    const { exe } = npmLayout();
    mkdirSync(join(dir, "shims"));
    symlinkSync(join(dir, "bin", "bun"), join(dir, "shims", "bun"));
    expect(asFoundOnPath(exe, ["bun"], which(`${join(dir, "shims")}:${join(dir, "bin")}`))).toBe(
      join(dir, "shims", "bun"),
    );
  });

  test("no bun on PATH (an IDE's short PATH), or another Bun first on it: the running executable's own path", () => {
    const { exe } = npmLayout();
    mkdirSync(join(dir, "other"));
    writeFileSync(join(dir, "other", "bun"), "#!/bin/sh\n", { mode: 0o755 });
    expect(asFoundOnPath(exe, ["bun"], which(join(dir, "empty")))).toBe(exe);
    expect(asFoundOnPath(exe, ["bun"], which(`${join(dir, "other")}:${join(dir, "bin")}`))).toBe(exe);
  });

  test("an entry that names the file behind the link (written by an older install) is still this install", () => {
    const { bin, exe } = npmLayout();
    const launch = launchFrom({
      standalone: false,
      execPath: asFoundOnPath(exe, ["bun"], which(bin)),
      packageRoot: "/x",
      bunx: null,
    });
    expect(launch.command).toBe(join(bin, "bun"));
    expect(isThisInstall(launch, exe, ["/x/src/cli.ts", "mcp"])).toBe(true);
    expect(isThisInstall(launch, join(dir, "elsewhere", "bun"), ["/x/src/cli.ts", "mcp"])).toBe(false);
  });

  test("a compiled binary linked onto PATH under another name is found by either name", () => {
    mkdirSync(join(dir, "opt"));
    mkdirSync(join(dir, "bin"));
    const exe = join(dir, "opt", "skill-central-linux-x64");
    writeFileSync(exe, "#!/bin/sh\n", { mode: 0o755 });
    symlinkSync(exe, join(dir, "bin", "skill-central"));
    expect(asFoundOnPath(exe, ["skill-central", "skill-central-linux-x64"], which(join(dir, "bin")))).toBe(
      join(dir, "bin", "skill-central"),
    );
  });
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
