import { existsSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import type { Host } from "./host.ts";

/**
 * How this install of skill-central is started, so the entry a client gets runs this very copy:
 * - a compiled binary: its absolute path;
 * - an installed package (run with `bunx skill-central`, or from a project's node_modules):
 *   `bunx skill-central`, by bunx's absolute path when it can be found;
 * - a checkout: `bun <checkout>/src/cli.ts`, by bun's absolute path.
 * Absolute paths because IDEs started from a desktop menu often have a shorter PATH than a shell.
 */
export interface Launch {
  kind: "binary" | "bunx" | "source";
  command: string;
  /** Arguments before the `mcp` command. */
  prefix: string[];
}

export interface LaunchFacts {
  standalone: boolean;
  /** `process.execPath`: the binary itself, or the Bun that runs the source. */
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
    return facts.bunx ? { kind: "bunx", command: facts.bunx, prefix: ["skill-central"] } : { kind: "bunx", command: facts.execPath, prefix: ["x", "skill-central"] };
  }
  return { kind: "source", command: facts.execPath, prefix: [join(facts.packageRoot, "src", "cli.ts")] };
}

/** This process's launch (src/install/ is two levels below the package root). */
export function currentLaunch(host: Host): Launch {
  // bunx sits beside bun (as bunx.exe where npm installed Bun, on every platform).
  const beside = ["bunx", "bunx.exe"].map((name) => join(dirname(process.execPath), name)).find((path) => existsSync(path));
  return launchFrom({
    standalone: Bun.isStandaloneExecutable,
    execPath: process.execPath,
    packageRoot: join(import.meta.dir, "..", ".."),
    bunx: beside ?? host.which("bunx"),
  });
}

/** The stdio command line for `mcp`, with the options a client needs (e.g. `--cwd <project>`). */
export function commandLine(launch: Launch, mcpOptions: readonly string[]): { command: string; args: string[] } {
  return { command: launch.command, args: [...launch.prefix, "mcp", ...mcpOptions] };
}

/** True when a command line starts the same install this process is. */
export function isThisInstall(launch: Launch, command: string, args: readonly string[]): boolean {
  return command === launch.command && launch.prefix.every((p, i) => args[i] === p) && args[launch.prefix.length] === "mcp";
}
