/**
 * How this install of skill-central is started, so the entry a client gets runs this very copy:
 * - a compiled binary: its absolute path;
 * - an installed package (run with `bunx skill-central`, or from a project's node_modules):
 *   `bunx skill-central`, by bunx's absolute path when it can be found;
 * - a checkout: `bun <checkout>/src/cli.ts`, by bun's absolute path.
 * Absolute paths because IDEs started from a desktop menu often have a shorter PATH than a shell;
 * the path on PATH rather than the resolved one, so an upgrade of Bun does not break the entry.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import type { Host } from "./host.ts";

export interface Launch {
  kind: "binary" | "bunx" | "source";
  command: string;
  /** Arguments before the `mcp` command. */
  prefix: string[];
}

export interface LaunchFacts {
  standalone: boolean;
  /** The binary itself, or the Bun that runs the source, as found on PATH when it is there (`asFoundOnPath`). */
  execPath: string;
  /** The folder holding package.json and src/ when running from source. */
  packageRoot: string;
  /** bunx beside bun, or on PATH; null when neither exists (then `bun x` is used). */
  bunx: string | null;
}

export function launchFrom(facts: LaunchFacts): Launch {
  if (facts.standalone) return { kind: "binary", command: facts.execPath, prefix: [] };
  const installed = `${facts.packageRoot}${sep}`.includes(`${sep}node_modules${sep}`);
  if (installed) {
    return facts.bunx
      ? { kind: "bunx", command: facts.bunx, prefix: ["skill-central"] }
      : { kind: "bunx", command: facts.execPath, prefix: ["x", "skill-central"] };
  }
  return { kind: "source", command: facts.execPath, prefix: [join(facts.packageRoot, "src", "cli.ts")] };
}

/** True when two paths name the same file (through links, hard links included). */
function sameFile(a: string, b: string): boolean {
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * The path to register for the executable this process runs: where `names` is found on PATH,
 * as found (links not resolved), when that is this very executable; else `execPath`.
 *
 * `process.execPath` is the executable after every link is resolved: with npm's global `bun`
 * package it is `…/node_modules/bun/bin/bun.exe`, with Homebrew a versioned Cellar folder. Those
 * paths are an installer's private layout and vanish when Bun (or the binary) is upgraded or
 * reinstalled another way, while the link on PATH is what installers keep in place. It is still
 * registered as an absolute path, not a bare `bun`, because IDEs started from a desktop menu get
 * a shorter PATH than a shell (`~/.bun/bin` is added by shell startup files only).
 */
export function asFoundOnPath(
  execPath: string,
  names: readonly string[],
  which: (command: string) => string | null,
): string {
  for (const name of names) {
    const found = which(name);
    if (found && isAbsolute(found) && sameFile(found, execPath)) return found;
  }
  return execPath;
}

/** This process's launch (src/install/ is two levels below the package root). */
export function currentLaunch(host: Host): Launch {
  const execPath = process.execPath;
  const names = Bun.isStandaloneExecutable ? ["skill-central", basename(execPath)] : ["bun"];
  const command = asFoundOnPath(execPath, names, (name) => host.which(name));
  // bunx sits beside bun (as bunx.exe where npm installed Bun, on every platform).
  const beside = [command, execPath]
    .flatMap((bun) => ["bunx", "bunx.exe"].map((name) => join(dirname(bun), name)))
    .find((path) => existsSync(path));
  return launchFrom({
    standalone: Bun.isStandaloneExecutable,
    execPath: command,
    packageRoot: join(import.meta.dir, "..", ".."),
    bunx: beside ?? host.which("bunx"),
  });
}

/** The stdio command line for `mcp`, with the options a client needs (e.g. `--cwd <project>`). */
export function commandLine(launch: Launch, mcpOptions: readonly string[]): { command: string; args: string[] } {
  return { command: launch.command, args: [...launch.prefix, "mcp", ...mcpOptions] };
}

/**
 * True when a command line starts the same install this process is. The command may name the
 * same file by another path: an entry written before install registered the path found on PATH
 * holds the file behind the link (`doctor` then says "other options", and `install --force`
 * rewrites it).
 */
export function isThisInstall(launch: Launch, command: string, args: readonly string[]): boolean {
  return (
    (command === launch.command || sameFile(command, launch.command)) &&
    launch.prefix.every((p, i) => args[i] === p) &&
    args[launch.prefix.length] === "mcp"
  );
}
