import { SOURCE_ENTRY, type ServerTarget } from "../helpers/server.ts";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI from source (`bun src/cli.ts …`) in `cwd` with an isolated HOME and no colour
 * hints, the way a script or CI would.
 */
export async function runCli(
  args: readonly string[],
  cwd: string,
  home: string,
  env: Record<string, string> = {},
): Promise<CliRun> {
  return runCommand([process.execPath, SOURCE_ENTRY, ...args], cwd, {
    HOME: home,
    PATH: process.env.PATH ?? "",
    ...env,
  });
}

/**
 * Runs `target`'s CLI (its command less the trailing `mcp`: the source entry or the binary) in the
 * fixture's folder, with its HOME and no colour hints, plus `env`.
 */
export function runTarget(
  target: ServerTarget,
  fixture: { cwd: string; home: string },
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  return runCommand([target.command, ...target.args.slice(0, -1), ...args], fixture.cwd, {
    HOME: fixture.home,
    PATH: process.env.PATH ?? "",
    NO_COLOR: "1",
    ...env,
  });
}

/** Runs `command` in `cwd` with exactly `env`, no stdin, and collects its output and exit code. */
export async function runCommand(
  command: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<CliRun> {
  const proc = Bun.spawn([...command], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** Shorthand for a JSON-printing run. */
export async function runCliJson<T = unknown>(
  args: readonly string[],
  cwd: string,
  home: string,
): Promise<CliRun & { json: T }> {
  const run = await runCli([...args, "--json"], cwd, home);
  let json: T;
  try {
    json = JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return { ...run, json };
}
