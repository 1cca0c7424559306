#!/usr/bin/env bun
/**
 * Builds the standalone executable: the one place that knows the release targets and the flags.
 *
 *   bun script/build.ts          dist/skill-central, for this machine
 *   bun script/build.ts --all    dist/skill-central-<os>-<arch>[.exe] for every release target,
 *                             plus dist/SHA256SUMS (`sha256sum -c SHA256SUMS` format)
 *
 * Cross-compiling fetches each target's Bun runtime from the npm registry once (~2 s) and keeps
 * it in ~/.bun/install/cache. Progress goes to stderr; the list of files written to stdout.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { BUILTIN_ASSET_DIR } from "../src/config/builtin-layer.ts";

export const REPO_ROOT = join(import.meta.dir, "..");
export const DIST_DIR = join(REPO_ROOT, "dist");
const ENTRY = join(REPO_ROOT, "src", "cli.ts");
/**
 * Modules started as workers (`new Worker(…)`), relative to the repository: the binary embeds each
 * as an entrypoint of its own, and the npm package ships each with the API. Argument checks whose
 * patterns may backtrack run on the first (src/invoke/guarded-validation.ts).
 */
export const WORKER_ENTRIES = ["src/invoke/validation-worker.ts"];
/**
 * Modules the server requires by path only when it needs them (src/mcp/catalog/token-count.ts): embedded
 * as entrypoints of their own, so their megabytes are never parsed by a process that does not.
 */
const LAZY_ENTRIES = ["src/mcp/catalog/o200k-table.ts"];
const WORKERS = [...WORKER_ENTRIES, ...LAZY_ENTRIES].map((entry) => join(REPO_ROOT, entry));
const BUILTIN_SKILLS = join(REPO_ROOT, BUILTIN_ASSET_DIR);
export const BINARY_NAME = "skill-central";

/** A release target: the `<os>-<arch>` suffix of the file name and Bun's compile target. */
export interface ReleaseTarget {
  name: string;
  bunTarget: Bun.Build.CompileTarget;
  /** Windows executables need the `.exe` suffix to run. */
  exe: boolean;
  /**
   * The machine it runs on, in Node's words (`process.platform`, `process.arch`), which are also
   * npm's `os`, `cpu` and `libc` fields: the npm release (script/release-pack.ts) sets them on
   * each target's package so a package manager installs only the one that runs.
   */
  os: "linux" | "darwin" | "win32";
  cpu: "x64" | "arm64";
  /** Set only where it decides between two packages (glibc is the default on Linux). */
  libc?: "musl";
}

export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", exe: false, os: "linux", cpu: "x64" },
  { name: "linux-x64-musl", bunTarget: "bun-linux-x64-musl", exe: false, os: "linux", cpu: "x64", libc: "musl" },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", exe: false, os: "linux", cpu: "arm64" },
  { name: "darwin-x64", bunTarget: "bun-darwin-x64", exe: false, os: "darwin", cpu: "x64" },
  { name: "darwin-arm64", bunTarget: "bun-darwin-arm64", exe: false, os: "darwin", cpu: "arm64" },
  { name: "windows-x64", bunTarget: "bun-windows-x64", exe: true, os: "win32", cpu: "x64" },
];

export function releaseTarget(name: string): ReleaseTarget {
  const target = RELEASE_TARGETS.find((t) => t.name === name);
  if (!target) throw new Error(`unknown target "${name}" (known: ${RELEASE_TARGETS.map((t) => t.name).join(", ")})`);
  return target;
}

export function releaseFileName(target: ReleaseTarget): string {
  return `${BINARY_NAME}-${target.name}${target.exe ? ".exe" : ""}`;
}

export interface BuildOptions {
  outfile: string;
  /** Omitted: this machine. */
  target?: ReleaseTarget;
}

export interface BuildResult {
  outfile: string;
  target: string;
  bytes: number;
  ms: number;
}

export interface ExecutableOptions extends BuildOptions {
  entry: string;
  /** Worker scripts the entry starts (`new Worker(new URL("./x.ts", import.meta.url))`): each must be an entrypoint too. */
  workers?: string[];
  /** Folders embedded in the executable, found at runtime under `import.meta.dir`. */
  assets?: string[];
}

/**
 * One executable from any entry, with the release flags (the bench builds its floor through
 * this too, so both sides of a comparison are compiled alike). The flags, and why:
 * - `bytecode` (which needs `format: "esm"`, as the entry has top-level await): parsing moves to
 *   build time, roughly halving spawn→initialize.
 * - `minify`: smaller embedded source, a little less to load.
 * - `autoloadBunfig` / `autoloadDotenv` off: the server runs in the user's project folder, and a
 *   `bunfig.toml` there (a `preload` script, say) or a `.env` must not change how it behaves.
 */
export async function compileExecutable(options: ExecutableOptions): Promise<BuildResult> {
  const started = performance.now();
  const output = await Bun.build({
    entrypoints: [options.entry, ...(options.workers ?? [])],
    target: "bun",
    format: "esm",
    minify: true,
    bytecode: true,
    compile: {
      outfile: options.outfile,
      ...(options.target && { target: options.target.bunTarget }),
      ...(options.assets && { assets: options.assets }),
      autoloadBunfig: false,
      autoloadDotenv: false,
    },
    throw: false,
  });
  if (!output.success) {
    throw new Error(`build failed (${options.target?.name ?? "host"}):\n${output.logs.map(String).join("\n")}`);
  }
  const outfile = output.outputs[0]?.path ?? options.outfile;
  return {
    outfile,
    target: options.target?.name ?? "host",
    bytes: Bun.file(outfile).size,
    ms: performance.now() - started,
  };
}

/** skill-central itself: the CLI entry with the built-in skills embedded (see `builtinSkillsDir()`). */
export function buildBinary(options: BuildOptions): Promise<BuildResult> {
  return compileExecutable({ ...options, entry: ENTRY, workers: WORKERS, assets: [BUILTIN_SKILLS] });
}

/** The executable for this machine at `dist/skill-central` (`bun run build`). */
export function buildHost(outDir = DIST_DIR): Promise<BuildResult> {
  mkdirSync(outDir, { recursive: true });
  return buildBinary({ outfile: join(outDir, BINARY_NAME + (process.platform === "win32" ? ".exe" : "")) });
}

export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/**
 * Every release target, one after the other (each build already uses both cores), then
 * `SHA256SUMS` listing them by file name so it can be checked beside the downloads.
 */
export async function buildAll(
  outDir = DIST_DIR,
  targets: readonly ReleaseTarget[] = RELEASE_TARGETS,
): Promise<BuildResult[]> {
  mkdirSync(outDir, { recursive: true });
  const results: BuildResult[] = [];
  for (const target of targets) {
    const result = await buildBinary({ outfile: join(outDir, releaseFileName(target)), target });
    process.stderr.write(
      `built ${basename(result.outfile)}: ${formatMiB(result.bytes)} in ${(result.ms / 1000).toFixed(1)} s\n`,
    );
    results.push(result);
  }
  const sums = await Promise.all(results.map(async (r) => `${await sha256File(r.outfile)}  ${basename(r.outfile)}\n`));
  await Bun.write(join(outDir, "SHA256SUMS"), sums.join(""));
  return results;
}

export function formatMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const testBuilds = new Map<string, Promise<string>>();
const TEST_BINARIES_DIR = join(tmpdir(), "skill-central-test-binaries");

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Test binaries are named `<target>-<pid>` and removed by the next test process once their own
 * process has ended (`bun test` runs no exit hooks, so a process cannot clean up after itself).
 * At most the last run's binaries stay behind, and a binary another test process is using right
 * now is never removed.
 */
function removeFinishedTestBinaries(): void {
  mkdirSync(TEST_BINARIES_DIR, { recursive: true });
  for (const name of readdirSync(TEST_BINARIES_DIR)) {
    const pid = Number(/-(\d+)(\.exe)?$/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !processAlive(pid))
      rmSync(join(TEST_BINARIES_DIR, name), { force: true });
  }
}

/**
 * For the test suite: builds an executable once per process (per target) and returns its path.
 * Test files that run in one `bun test` process share one build.
 */
export function buildForTests(targetName?: string): Promise<string> {
  const key = targetName ?? "host";
  let build = testBuilds.get(key);
  if (!build) {
    removeFinishedTestBinaries();
    const target = targetName === undefined ? undefined : releaseTarget(targetName);
    const outfile = join(TEST_BINARIES_DIR, `${key}-${process.pid}${target?.exe ? ".exe" : ""}`);
    build = buildBinary({ outfile, ...(target && { target }) }).then((r) => r.outfile);
    testBuilds.set(key, build);
  }
  return build;
}

if (import.meta.main) {
  const all = process.argv.includes("--all");
  const started = performance.now();
  const results = all ? await buildAll() : [await buildHost()];
  for (const r of results) process.stdout.write(`${r.outfile}\t${formatMiB(r.bytes)}\t${(r.ms / 1000).toFixed(1)} s\n`);
  if (all) process.stdout.write(`${join(DIST_DIR, "SHA256SUMS")}\n`);
  process.stderr.write(`done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
