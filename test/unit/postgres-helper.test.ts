import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CLUSTERS, describePostgres, startPostgres } from "../helpers/postgres.ts";

/**
 * test/helpers/postgres.ts cleans up after test processes that could not: a process killed with
 * SIGKILL runs no exit handler, so its postmaster runs on and its folder stays. The next start
 * stops and removes those clusters, and leaves a live run's alone. Each cluster here is started
 * by a real child process running the helper, as a test file would.
 */

interface Owned {
  proc: Bun.Subprocess<"pipe", "pipe", "inherit">;
  cluster: { dir: string; port: number; postmaster: number };
}

/** A child process that starts a cluster, says where it is, and exits (cleanly) when its stdin closes. */
async function owner(): Promise<Owned> {
  const helper = JSON.stringify(join(import.meta.dir, "..", "helpers", "postgres.ts"));
  const script = `
    import { readFileSync } from "node:fs";
    import { startPostgres } from ${helper};
    const pg = startPostgres();
    const postmaster = Number(readFileSync(pg.dir + "/data/postmaster.pid", "utf8").split("\\n")[0]);
    console.log(JSON.stringify({ dir: pg.dir, port: pg.port, postmaster }));
    for await (const _ of Bun.stdin.stream()) {}
    process.exit(0);
  `;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the child exited before its cluster started: ${text}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { proc, cluster: JSON.parse(text) };
}

/** Whether a process runs (Linux: present in /proc and not a zombie). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

/** Waits until `pid` has exited: it is stopped before its pid file goes, and exits just after. */
async function exited(pid: number): Promise<void> {
  while (running(pid)) await Bun.sleep(20);
}

/** Whether the cluster's port takes a TCP connection. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          socket.end();
          resolve(true);
        },
        data() {},
        connectError() {
          resolve(false);
        },
      },
    }).catch(() => resolve(false));
  });
}

describePostgres("test/helpers/postgres.ts: clusters of test processes that were killed", () => {
  test("a cluster whose test process was SIGKILLed is stopped and removed on the next start; a live run's cluster is left running", async () => {
    const live = await owner();
    const dead = await owner();
    for (const { cluster } of [live, dead]) expect(cluster.dir.startsWith(`${CLUSTERS}/`)).toBe(true);
    dead.proc.kill("SIGKILL");
    await dead.proc.exited;
    // The leak: the killed run's postmaster serves on and its folder stays.
    expect({ folder: existsSync(dead.cluster.dir), postmaster: running(dead.cluster.postmaster) }).toEqual({
      folder: true,
      postmaster: true,
    });

    const pg = startPostgres();
    try {
      expect(existsSync(dead.cluster.dir)).toBe(false);
      await exited(dead.cluster.postmaster);
      expect(await accepts(dead.cluster.port)).toBe(false);
      // The live run's cluster is untouched.
      expect({
        folder: existsSync(live.cluster.dir),
        postmaster: running(live.cluster.postmaster),
        accepts: await accepts(live.cluster.port),
      }).toEqual({ folder: true, postmaster: true, accepts: true });
    } finally {
      pg.destroy();
      live.proc.stdin.end();
      await live.proc.exited;
    }
    // A run that ends normally removes its own.
    expect(existsSync(live.cluster.dir)).toBe(false);
  }, 180_000);
});
