/**
 * The `skill-central` command of the npm package (`npx -y skill-central mcp`, `bunx skill-central`):
 * finds the binary that the package manager installed for this machine, one of the main package's
 * optionalDependencies, and runs it in its place. script/release-pack.ts bundles this file into
 * the package's `bin/skill-central.js` with a `#!/usr/bin/env node` line: Node 18+ runs it for npx,
 * and bunx runs it with Node, or with Bun when there is no Node.
 *
 * The child inherits stdin, stdout and stderr, so an MCP client talks to the binary directly and
 * the launcher never touches a frame. Signals sent to the launcher are passed on; the child's exit
 * code, or the signal that ended it, becomes the launcher's.
 *
 * Node APIs only, nothing Bun-specific, and no dependencies.
 */
import { spawn } from "node:child_process";
import { accessSync, chmodSync, constants, existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { constants as osConstants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { binaryPathInPackage, MAIN_PACKAGE, platformPackageName, targetName, thisMachine } from "./platform.ts";

/** Runs this binary instead of a platform package's: a platform without a package, or a local build. */
const BINARY_OVERRIDE = "SKILL_CENTRAL_BINARY";
const FORWARDED_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

interface Manifest {
  version: string;
  optionalDependencies?: Record<string, string>;
}

/** One line on stderr, then exit: the launcher's only output of its own. */
function fail(message: string, code = 1): never {
  process.stderr.write(`${MAIN_PACKAGE}: ${message}\n`);
  process.exit(code);
}

function readManifest(path: string): Manifest {
  return JSON.parse(readFileSync(path, "utf8")) as Manifest;
}

function locateBinary(): string {
  const override = process.env[BINARY_OVERRIDE];
  if (override) return override;

  const manifestPath = fileURLToPath(new URL("../package.json", import.meta.url));
  const { version, optionalDependencies = {} } = readManifest(manifestPath);
  const machine = thisMachine();
  const target = targetName(machine);
  const packageName = platformPackageName(target);
  const published = Object.keys(optionalDependencies);
  if (!published.includes(packageName)) {
    const targets = published.map((name) => name.slice(MAIN_PACKAGE.length + 1)).join(", ");
    fail(
      `no prebuilt binary for ${target} (there are: ${targets}); build one from a checkout with \`bun run build\` and set ${BINARY_OVERRIDE} to its path`,
    );
  }

  let packageJson: string;
  try {
    // Resolved from the main package's own folder, as Node resolves its dependencies.
    packageJson = createRequire(manifestPath).resolve(`${packageName}/package.json`);
  } catch {
    fail(
      `the binary for ${target} is not installed: install ${packageName}@${version} (was it skipped with --omit=optional or --no-optional?)`,
    );
  }
  const installed = readManifest(packageJson).version;
  if (installed !== version)
    fail(`${packageName} is ${installed} but ${MAIN_PACKAGE} is ${version}: install ${packageName}@${version}`);
  const binary = join(dirname(packageJson), binaryPathInPackage(machine.os));
  if (!existsSync(binary)) fail(`${binary} is missing: reinstall ${packageName}@${version}`);
  return binary;
}

/**
 * npm and Bun keep the executable bit the tarball carries; a package manager that drops it would
 * otherwise leave a binary that cannot start.
 */
function ensureExecutable(binary: string): void {
  if (process.platform === "win32") return;
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    try {
      chmodSync(binary, 0o755);
    } catch {
      // Spawning reports the real problem.
    }
  }
}

function run(binary: string, args: string[]): void {
  ensureExecutable(binary);
  const child = spawn(binary, args, { stdio: "inherit", windowsHide: true });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);

  child.on("error", (error: NodeJS.ErrnoException) => {
    fail(`cannot run ${binary}: ${error.message}`, error.code === "ENOENT" ? 127 : 126);
  });
  child.on("exit", (code, signal) => {
    for (const s of FORWARDED_SIGNALS) process.off(s, forward);
    if (signal) {
      // End the way the child ended, so the caller sees the same signal; the exit code a shell
      // would report is the fallback should the signal not end this process.
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128 + (osConstants.signals[signal] ?? 0)), 500);
      return;
    }
    process.exit(code ?? 1);
  });
}

run(locateBinary(), process.argv.slice(2));
