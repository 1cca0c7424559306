import type { Subprocess } from "bun";

/**
 * Children that start children (npx → sh → launcher → binary; Verdaccio) run in their own process
 * group, so a test that gives up can end the whole tree at once, and nothing outlives the suite.
 */
export function killGroup(proc: Subprocess, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(-proc.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Resolves with the exit code, or kills the process group and rejects once `ms` has passed. */
export async function exitedWithin(proc: Subprocess, ms: number, what: string): Promise<number> {
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      killGroup(proc);
      reject(new Error(`${what} did not exit within ${ms} ms; killed`));
    }, ms);
  });
  try {
    return await Promise.race([proc.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  stdin?: string;
}

/** Runs a command to completion in its own process group, bounded by `timeoutMs`. */
export async function runBounded(command: string[], options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const proc = Bun.spawn(command, {
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  const stdout = new Response(proc.stdout).text();
  const stderr = new Response(proc.stderr).text();
  try {
    const code = await exitedWithin(proc, options.timeoutMs, command.join(" "));
    return { code, stdout: await stdout, stderr: await stderr, ms: performance.now() - started };
  } catch (error) {
    // Killed: whatever it printed explains why it hung.
    const [out, err] = await Promise.all([stdout.catch(() => ""), stderr.catch(() => "")]);
    throw new Error(`${(error as Error).message}\n--- stdout\n${out}\n--- stderr\n${err}`);
  }
}

/** Like runBounded, but a non-zero exit is an error that shows the output. */
export async function runOk(command: string[], options: RunOptions): Promise<RunResult> {
  const result = await runBounded(command, options);
  if (result.code !== 0)
    throw new Error(
      `${command.join(" ")} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
    );
  return result;
}

/** The pids whose parent is `pid` (Linux `/proc`); empty where that is not available. */
export async function childPids(pid: number): Promise<number[]> {
  try {
    const text = await Bun.file(`/proc/${pid}/task/${pid}/children`).text();
    return text.split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * `command`, run by root without the capabilities that let root read and search what file modes
 * forbid (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): so a test run as root (CI containers) sees a
 * mode-000 folder refused, as an ordinary user would. It stays root, the owner of the checkout:
 * switching to another user (`nobody`) instead cannot read a checkout in a private folder (a clone
 * under /root, or in `mktemp -d`), so the source entry was "Module not found" there.
 */
export function withoutPermissionOverride(command: readonly string[]): string[] {
  const drop = "-dac_override,-dac_read_search";
  return ["setpriv", `--inh-caps=${drop}`, `--bounding-set=${drop}`, "--", ...command];
}
