import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { processAlive, runOk } from "./processes.ts";
import { REPO_ROOT } from "./server.ts";

/**
 * The npm release for tests: `bun run release:pack`, run for real on a committed snapshot of this
 * working tree. A snapshot, because the script packs only a clean tree: it lets the suite test
 * uncommitted work, and leaves the developer's tree alone.
 */

// Not under the `skill-central-test-` prefix of the fixtures, which people sweep from a shared /tmp.
const RELEASE_TEST_DIR = join(tmpdir(), "skill-central-release-tests");

const GIT_IDENTITY = [
  "-c",
  "user.name=skill-central tests",
  "-c",
  "user.email=tests@skill-central.invalid",
  "-c",
  "commit.gpgsign=false",
  "-c",
  "tag.gpgsign=false",
];

export function git(cwd: string, ...args: string[]): string {
  const result = Bun.spawnSync(["git", ...GIT_IDENTITY, ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed in ${cwd}: ${result.stderr}`);
  return result.stdout.toString();
}

/**
 * A new git repository at `into` holding this working tree as it is (tracked and untracked files,
 * nothing git ignores) in one commit. `node_modules` is linked, not copied, and excluded.
 */
export function snapshotCheckout(into: string): string {
  const listed = git(REPO_ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    .split("\0")
    .filter(Boolean);
  for (const file of listed) {
    const from = join(REPO_ROOT, file);
    if (!existsSync(from) || lstatSync(from).isDirectory()) continue; // deleted, not yet committed; or a submodule
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(from, join(into, file));
  }
  symlinkSync(join(REPO_ROOT, "node_modules"), join(into, "node_modules"), "dir");
  git(into, "init", "-q", "-b", "main");
  // `node_modules/` in .gitignore matches folders only, and the link is not one.
  writeFileSync(join(into, ".git", "info", "exclude"), "/node_modules\n");
  git(into, "add", "-A");
  git(into, "commit", "-q", "-m", "snapshot for the release tests");
  return into;
}

/** A folder for this test process, and the removal of those whose process has ended. */
export function releaseTestDir(label: string): string {
  mkdirSync(RELEASE_TEST_DIR, { recursive: true });
  for (const name of readdirSync(RELEASE_TEST_DIR)) {
    const pid = Number(/-(\d+)$/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !processAlive(pid))
      rmSync(join(RELEASE_TEST_DIR, name), { recursive: true, force: true });
  }
  const dir = join(RELEASE_TEST_DIR, `${label}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface PackedRelease {
  /** The snapshot the script ran in. */
  checkout: string;
  outDir: string;
  /** Where the MCP Bundles went. */
  bundleDir: string;
  /** Every file the script listed on stdout: tarballs, their SHA256SUMS, bundles, theirs. */
  listed: string[];
  /** Tarball path by package name. */
  tarballs: Map<string, string>;
  /** Bundle path by release target name (`linux-x64`). */
  bundles: Map<string, string>;
  stderr: string;
  ms: number;
}

let packed: Promise<PackedRelease> | undefined;

/**
 * Packs once per test process (test files in one `bun test` run share it); the folder is removed
 * by the next run, since `bun test` runs no exit hooks.
 */
export function packReleaseForTests(): Promise<PackedRelease> {
  packed ??= (async () => {
    const root = releaseTestDir("pack");
    const checkout = snapshotCheckout(join(root, "checkout"));
    const outDir = join(root, "out");
    const bundleDir = join(root, "mcpb");
    const result = await runOk([process.execPath, "run", "release:pack", "--out", outDir, "--mcpb-out", bundleDir], {
      cwd: checkout,
      env: { ...process.env, NO_COLOR: "1" },
      timeoutMs: 600_000,
    });
    process.stderr.write(`release:pack for the tests: ${(result.ms / 1000).toFixed(1)} s\n`);
    const listed = result.stdout.split("\n").filter(Boolean);
    const tarballs = new Map<string, string>();
    for (const path of listed.filter((p) => p.endsWith(".tgz"))) {
      const name = /^(.*)-\d+\.\d+\.\d+[^/]*\.tgz$/.exec(path.split("/").pop()!)?.[1];
      if (name) tarballs.set(name, path);
    }
    const bundles = new Map<string, string>();
    for (const path of listed.filter((p) => p.endsWith(".mcpb"))) {
      const target = /^skill-central-(.*)-\d+\.\d+\.\d+[^/]*\.mcpb$/.exec(path.split("/").pop()!)?.[1];
      if (target) bundles.set(target, path);
    }
    return { checkout, outDir, bundleDir, listed, tarballs, bundles, stderr: result.stderr, ms: result.ms };
  })();
  return packed;
}
