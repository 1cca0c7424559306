import { describe } from "bun:test";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

/**
 * A throwaway PostgreSQL cluster for the tests that need one (the team store): `initdb` in a
 * temporary folder, the server on a 127.0.0.1 port and a socket in that folder, password
 * authentication (scram-sha-256, the password in PGPASSWORD as a team would set it), stopped
 * when the test file is done or the process exits. Debian's `postgresql` package provides the
 * binaries (.ci/run installs it); `$PG_BIN` names another folder of them.
 *
 * `initdb` refuses to run as root, and CI runs as root: there the cluster's commands run as the
 * unprivileged `postgres` user the package creates (through `runuser`), on a folder it owns.
 *
 * Tests that need it are declared with `describePostgres`: skipped only where no PostgreSQL can
 * be started, and under CI=true never skipped: there a missing PostgreSQL fails them.
 *
 * A test process killed outright (SIGKILL, the OOM killer) runs no exit handler, and its
 * postmaster, a daemon, runs on with its folder. So every cluster lives in one folder per user
 * (`skill-central-pg-<uid>` in the temporary folder) beside an `owner` file naming the test
 * process (pid and, on Linux, its start time, so a reused pid is not taken for it); each start
 * first stops and removes the clusters whose owner is gone, and never touches a live run's.
 */

const USER = "skill";
export const PG_PASSWORD = "pw-Zq7-never-logged-4f1c";

/** The folder of PostgreSQL's server binaries (initdb, pg_ctl), or undefined. */
function binaries(): string | undefined {
  const candidates = [process.env.PG_BIN];
  const root = "/usr/lib/postgresql";
  if (existsSync(root))
    for (const version of readdirSync(root).sort((a, b) => Number(b) - Number(a)))
      candidates.push(join(root, version, "bin"));
  return candidates.find(
    (dir): dir is string => dir !== undefined && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")),
  );
}

const isRoot = process.getuid?.() === 0;

/** The unprivileged user the cluster runs as when the tests run as root. */
function postgresUid(): { uid: number; gid: number } | undefined {
  const passwd = Bun.spawnSync(["id", "-u", "postgres"]);
  const group = Bun.spawnSync(["id", "-g", "postgres"]);
  if (passwd.exitCode !== 0 || group.exitCode !== 0) return undefined;
  return { uid: Number(passwd.stdout.toString().trim()), gid: Number(group.stdout.toString().trim()) };
}

const BIN = binaries();
const RUN_AS = isRoot ? postgresUid() : undefined;

/** Why no cluster can be started here, or undefined when one can. */
export const POSTGRES_MISSING: string | undefined =
  BIN === undefined
    ? "PostgreSQL's binaries are not installed (apt-get install postgresql; .ci/run does), nor named by $PG_BIN"
    : isRoot && (RUN_AS === undefined || Bun.which("runuser") === null)
      ? "running as root, and there is no `postgres` user (or runuser) to run initdb as"
      : undefined;

/** `describe`, skipped where PostgreSQL cannot be started; under CI=true never skipped (its tests then fail). */
export const describePostgres: typeof describe =
  POSTGRES_MISSING === undefined || process.env.CI === "true" ? describe : (describe.skip as typeof describe);

export interface Postgres {
  /** The cluster's folder (data, socket, log and owner file), in CLUSTERS. */
  dir: string;
  /** `postgres://skill@127.0.0.1:<port>/postgres`: no password, as a config names it. */
  url: string;
  port: number;
  /** The environment a client needs: PGPASSWORD. */
  env: { PGPASSWORD: string };
  /** Stops the server: `immediate` as a crash would, else a fast clean stop. */
  stop(mode?: "fast" | "immediate"): void;
  /** Starts it again on the same port and data. */
  start(): void;
  /** Stops it and removes its folder. */
  destroy(): void;
  /** Runs SQL as the cluster's owner (in `database`, default `postgres`) and returns psql's unaligned output. */
  psql(sql: string, database?: string): string;
}

function run(argv: string[], what: string): string {
  const command = RUN_AS !== undefined ? ["runuser", "-u", "postgres", "--", ...argv] : argv;
  const result = Bun.spawnSync(command, {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", LC_ALL: "C", PGPASSWORD: PG_PASSWORD },
  });
  if (result.exitCode !== 0)
    throw new Error(`${what} failed (${result.exitCode}): ${result.stderr.toString()}${result.stdout.toString()}`);
  return result.stdout.toString();
}

/** The folder every cluster of this user lives in, one `pg-*` folder each. */
export const CLUSTERS = join(tmpdir(), `skill-central-pg-${process.getuid?.() ?? "user"}`);
const OWNER = "owner";

/** A process's start time in clock ticks since boot (Linux), told apart from a later process given the same pid. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name, in parentheses, may hold spaces: the fields after its closing ")" are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** This process, as an `owner` file records it. */
function ownerLine(): string {
  return `${process.pid} ${startTime(process.pid) ?? "-"}\n`;
}

/** Whether the process an `owner` file names still runs (a zombie does not). */
function ownerAlive(line: string): boolean {
  const [pidText, started] = line.trim().split(" ");
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (started !== undefined && started !== "-" && existsSync("/proc/self/stat")) return startTime(pid) === started;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Stops and removes each cluster whose test process is gone. A folder without an owner file is
 * one being made this instant (mkdtemp, then the file): left alone.
 */
export function reapOrphans(): string[] {
  if (BIN === undefined || !existsSync(CLUSTERS)) return [];
  const reaped: string[] = [];
  for (const name of readdirSync(CLUSTERS)) {
    const dir = join(CLUSTERS, name);
    let owner: string;
    try {
      owner = readFileSync(join(dir, OWNER), "utf8");
    } catch {
      continue;
    }
    if (ownerAlive(owner)) continue;
    const data = join(dir, "data");
    if (existsSync(join(data, "postmaster.pid"))) {
      try {
        run([join(BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "-t", "60", "stop"], "pg_ctl stop");
      } catch {
        // Its postmaster is gone already (the pid file outlived it), or another run is stopping it.
      }
    }
    rmSync(dir, { recursive: true, force: true });
    reaped.push(dir);
  }
  return reaped;
}

const started = new Set<Postgres>();
process.on("exit", () => {
  for (const pg of started) pg.destroy();
});

/** A fresh cluster, started; throws (naming why) where none can be started. */
export function startPostgres(): Postgres {
  if (POSTGRES_MISSING !== undefined) throw new Error(`no PostgreSQL for this test: ${POSTGRES_MISSING}`);
  const bin = BIN!;
  reapOrphans();
  // 0755: under root, the postgres user must reach its cluster's folder inside.
  mkdirSync(CLUSTERS, { recursive: true });
  chmodSync(CLUSTERS, 0o755);
  const dir = mkdtempSync(join(CLUSTERS, "pg-"));
  writeFileSync(join(dir, OWNER), ownerLine());
  const data = join(dir, "data");
  const pwfile = join(dir, "pw");
  writeFileSync(pwfile, `${PG_PASSWORD}\n`, { mode: 0o600 });
  if (RUN_AS !== undefined) {
    chownSync(dir, RUN_AS.uid, RUN_AS.gid);
    chownSync(pwfile, RUN_AS.uid, RUN_AS.gid);
  }
  run(
    [
      join(bin, "initdb"),
      "-D",
      data,
      "-A",
      "scram-sha-256",
      `--pwfile=${pwfile}`,
      "-U",
      USER,
      "-E",
      "UTF8",
      "--no-sync",
    ],
    "initdb",
  );
  const port = freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  let running = false;
  const pg: Postgres = {
    dir,
    url: `postgres://${USER}@127.0.0.1:${port}/postgres`,
    port,
    env: { PGPASSWORD: PG_PASSWORD },
    start() {
      run(
        [join(bin, "pg_ctl"), "-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"],
        "pg_ctl start",
      );
      running = true;
    },
    stop(mode = "fast") {
      if (!running) return;
      running = false;
      run([join(bin, "pg_ctl"), "-D", data, "-m", mode, "-w", "-t", "60", "stop"], "pg_ctl stop");
    },
    destroy() {
      try {
        pg.stop("immediate");
      } catch {
        // Already stopped.
      }
      started.delete(pg);
      rmSync(dir, { recursive: true, force: true });
    },
    psql(sql: string, database = "postgres") {
      return run(
        [join(bin, "psql"), "-h", dir, "-p", String(port), "-U", USER, "-d", database, "-At", "-c", sql],
        "psql",
      );
    },
  };
  started.add(pg);
  pg.start();
  return pg;
}
