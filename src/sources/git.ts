/**
 * The system `git`, run the one way we run it: output piped (never inherited: in `mcp` mode our
 * stdout is the JSON-RPC channel), no prompt of any kind (a server has no terminal, and a hidden
 * prompt is a hang), the user's own credential helpers and SSH agent, a timeout, and every message
 * redacted of the URL's credentials.
 */
import { redactText } from "./git-url.ts";

/** Default limit for one git process; fetches of large repositories may need longer. */
export const GIT_TIMEOUT_MS = 120_000;

/** Variables that would point git at another repository or work tree than the one we name. */
const LOCATION_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_QUARANTINE_PATH",
  "GIT_PREFIX",
  "GIT_SHALLOW_FILE",
  "GIT_REPLACE_REF_BASE",
  "GIT_NO_REPLACE_OBJECTS",
  "GIT_GRAFT_FILE",
];

/**
 * The environment of every git process. Prompts are off in every form: the terminal
 * (`GIT_TERMINAL_PROMPT=0`), askpass helpers (an IDE's `GIT_ASKPASS` would pop a dialog from a
 * background process; an empty value makes git skip askpass entirely), Git Credential Manager's UI,
 * and SSH passphrase or host-key questions (`BatchMode=yes`, added to the user's own SSH command).
 * Credential helpers (`credential.helper`) and the SSH agent keep working. Messages are in
 * English so that failures can be told apart.
 */
export function gitEnvironment(
  base: Record<string, string | undefined> = process.env,
  configuredSsh?: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base))
    if (value !== undefined && !LOCATION_VARIABLES.includes(key)) env[key] = value;
  const ssh = base.GIT_SSH_COMMAND?.trim() || configuredSsh?.trim();
  Object.assign(env, {
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    GCM_INTERACTIVE: "never",
    GIT_SSH_COMMAND: `${ssh || "ssh"} -o BatchMode=yes -o ConnectTimeout=20`,
    // A transfer slower than 1 KB/s for 30 s is a dead connection, not a slow one.
    GIT_HTTP_LOW_SPEED_LIMIT: "1000",
    GIT_HTTP_LOW_SPEED_TIME: "30",
    LC_ALL: "C",
    LANGUAGE: "C",
  });
  // `GIT_SSH` (a program, not a command line) would win over GIT_SSH_COMMAND's BatchMode.
  delete env.GIT_SSH;
  return env;
}

/**
 * Settings for every git command: objects are checked as they arrive (a malformed tree, a `..`
 * or `.git` entry, is refused at fetch time), housekeeping runs in the foreground (inside our
 * lock and timeout, not as a detached process), and newer gits are told not to prompt either.
 */
const CONFIG = [
  "-c",
  "fetch.fsckObjects=true",
  "-c",
  "transfer.fsckObjects=true",
  "-c",
  "gc.autoDetach=false",
  "-c",
  "credential.interactive=never",
  "-c",
  "core.askPass=",
  "-c",
  "protocol.ext.allow=never",
  "-c",
  "protocol.fd.allow=never",
];

export interface GitRun {
  code: number;
  stdout: Uint8Array;
  /** Redacted. */
  stderr: string;
}

export interface GitOptions {
  /** The bare repository to run in (`--git-dir`); none for `init`. */
  gitDir?: string;
  /** The URL whose credentials must not leak into messages. */
  url?: string;
  timeoutMs?: number;
  stdin?: Uint8Array;
}

/** A git command that failed; `message` is redacted and names what was being done. */
export class GitError extends Error {
  override readonly name = "GitError";
  constructor(
    message: string,
    /** Redacted stderr of git, for classifying the failure. */
    readonly detail: string,
    readonly timedOut: boolean = false,
  ) {
    super(message);
  }
}

let checked: Promise<string | undefined> | undefined;
let sshCommand: Promise<string | undefined> | undefined;

/**
 * The user's `core.sshCommand`, read once: our `GIT_SSH_COMMAND` would override it, so it is
 * carried into ours (with BatchMode added) instead of lost.
 */
function configuredSshCommand(): Promise<string | undefined> {
  sshCommand ??= (async () => {
    try {
      const proc = Bun.spawn(["git", "config", "--get", "core.sshCommand"], {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "ignore",
        env: gitEnvironment(),
        timeout: 10_000,
      });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return code === 0 ? out.trim() || undefined : undefined;
    } catch {
      return undefined;
    }
  })();
  return sshCommand;
}

/** The installed git's version, or undefined when there is none (checked once per process). */
export function gitVersion(): Promise<string | undefined> {
  checked ??= (async () => {
    try {
      const proc = Bun.spawn(["git", "--version"], {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
        env: gitEnvironment(),
        timeout: 10_000,
      });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return code === 0 ? out.trim().replace(/^git version /, "") : undefined;
    } catch {
      return undefined;
    }
  })();
  return checked;
}

/** Runs `git <args>`; resolves with its exit status and output (never throws for a non-zero exit). */
export async function runGit(args: readonly string[], options: GitOptions = {}): Promise<GitRun> {
  const cmd = ["git", ...CONFIG, ...(options.gitDir ? [`--git-dir=${options.gitDir}`] : []), ...args];
  const env = gitEnvironment(process.env, await configuredSshCommand());
  let proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  try {
    proc = Bun.spawn(cmd, {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env,
      timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
  } catch (error) {
    const missing = (error as { code?: string }).code === "ENOENT";
    throw new GitError(
      missing ? "git is not installed (or not on PATH); git layers need it" : `could not run git: ${String(error)}`,
      "",
    );
  }
  const output = Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text()]);
  try {
    if (options.stdin) proc.stdin.write(options.stdin);
    await proc.stdin.end();
  } catch {
    // git exited before reading all of its input (an error it reports on stderr).
  }
  const [[stdout, stderr], code] = await Promise.all([output, proc.exited]);
  const timedOut = proc.signalCode === "SIGKILL";
  return {
    code: timedOut ? -1 : code,
    stdout,
    stderr: redactText(stderr, options.url).trim() + (timedOut ? "\n(timed out)" : ""),
  };
}

/** git's ways of saying the remote wants credentials it did not get. */
const AUTH_FAILURE =
  /could not read (Username|Password)|Authentication failed|terminal prompts disabled|Permission denied \(publickey|Host key verification failed/i;
const AUTH_HINT =
  " (skill-central never prompts: give git a credential helper or an SSH key for this remote; see docs/git-layers.md)";

/** Like `runGit`, but a non-zero exit throws a `GitError` saying `what` failed, with git's reason. */
export async function git(what: string, args: readonly string[], options: GitOptions = {}): Promise<Uint8Array> {
  const run = await runGit(args, options);
  if (run.code === 0) return run.stdout;
  const timedOut = run.code === -1;
  const reason = timedOut
    ? `timed out after ${Math.round((options.timeoutMs ?? GIT_TIMEOUT_MS) / 1000)} s`
    : lastLines(run.stderr) || `git exited with status ${run.code}`;
  const hint = AUTH_FAILURE.test(run.stderr) ? AUTH_HINT : "";
  throw new GitError(`${what}: ${reason}${hint}`, run.stderr, timedOut);
}

/**
 * The lines of git's stderr worth showing: its first `error:` lines (the cause, e.g. which fsck
 * check an object failed) and its last `fatal:` line, else the last line.
 */
function lastLines(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = lines.filter((l) => /^(error|remote):/i.test(l)).slice(0, 2);
  const fatal = lines.filter((l) => /^fatal:/i.test(l)).slice(-1);
  const important = [...errors, ...fatal];
  return (important.length > 0 ? important : lines.slice(-1)).join("; ");
}
