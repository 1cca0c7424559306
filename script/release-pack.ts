#!/usr/bin/env bun
/**
 * Packs the npm release, esbuild-style: one package per release target holding that target's
 * binary, and the main `skill-central` package that users install.
 *
 *   bun run release:pack                   dist/npm/*.tgz and dist/npm/SHA256SUMS, and
 *                                          dist/mcpb/*.mcpb and dist/mcpb/SHA256SUMS
 *   bun script/release-pack.ts --out <dir> --mcpb-out <dir>
 *   … --sign-cert <pem> --sign-key <pem>   signs the bundles (or MCPB_SIGNING_CERT, MCPB_SIGNING_KEY)
 *
 * - `skill-central-<target>` (one per RELEASE_TARGETS entry in script/build.ts): `bin/skill-central`
 *   (`.exe` on Windows) with `os`, `cpu` and, for musl, `libc` set, so npm and Bun install only the
 *   package that runs on the machine.
 * - `skill-central`: the launcher (script/launcher/launcher.ts, bundled to plain JavaScript) as
 *   its `bin`, the per-target packages as `optionalDependencies` pinned to this exact version, and
 *   the API for `bun test` (`openSkills`): the `src/` files `src/api.ts` reaches, `skills/`, and the
 *   packages the API imports at run time (not the MCP SDK, which only the binary needs).
 * - `skill-central-<target>-<version>.mcpb`: an MCP Bundle of the same binary, for Claude Desktop's
 *   one-click install (script/release-bundles.ts).
 *
 * The manifests are generated here from package.json; the repository's own package.json is the
 * development manifest (private, so it cannot be published by mistake).
 *
 * Refuses, before building anything: a tree with uncommitted or untracked changes, a version that
 * is not semver, a tag on HEAD naming another version. After building: a binary for this machine
 * that reports another version, and any packed manifest whose name or version is not what was
 * meant. Publishing stays manual (RELEASING.md). Progress goes to stderr; the files written, one
 * per line, to stdout.
 */
import { isBuiltin } from "node:module";
import { parseArgs } from "node:util";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import {
  buildBinary,
  DIST_DIR,
  formatMiB,
  REPO_ROOT,
  RELEASE_TARGETS,
  sha256File,
  WORKER_ENTRIES,
  type ReleaseTarget,
} from "./build.ts";
import {
  BundleError,
  bundleFileName,
  bundleSigning,
  checkBundlePlatform,
  packBundle,
  stageBundle,
  type BundleSigning,
} from "./release-bundles.ts";
import {
  binaryPathInPackage,
  MAIN_PACKAGE,
  platformPackageName,
  targetName,
  thisMachine,
} from "./launcher/platform.ts";

export const NPM_DIST_DIR = join(DIST_DIR, "npm");
export const MCPB_DIST_DIR = join(DIST_DIR, "mcpb");
const LAUNCHER_ENTRY = join(import.meta.dir, "launcher", "launcher.ts");
const LAUNCHER_PATH = "bin/skill-central.js";
const API_ENTRY = "src/api.ts";
/** Where the launcher runs: npx needs Node, and Node 18 is the oldest still in use. */
const LAUNCHER_NODE = ">=18";
/** Descriptive fields copied from package.json to every generated manifest, when present. */
const DESCRIPTIVE_FIELDS = ["license", "author", "homepage", "repository", "bugs"] as const;
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** A reason not to pack; the command prints its message and exits 1. */
export class ReleaseError extends Error {}

interface RepoManifest {
  name: string;
  version: string;
  description?: string;
  keywords?: string[];
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  [field: string]: unknown;
}

export interface PackOptions {
  /** The checkout to pack (default: this repository). */
  root?: string;
  /** Where the tarballs go (default: dist/npm). */
  outDir?: string;
  /** Where the MCP Bundles go (default: dist/mcpb). */
  bundleDir?: string;
  /** Sign the bundles with this certificate and key (`mcpb sign`). */
  signing?: BundleSigning;
  log?: (line: string) => void;
}

export interface PackedTarball {
  /** The package name, e.g. `skill-central-linux-x64`. */
  name: string;
  path: string;
  bytes: number;
}

export interface PackResult {
  version: string;
  /** The per-target packages in RELEASE_TARGETS order, then the main package. */
  tarballs: PackedTarball[];
  sums: string;
  /** One MCP Bundle per target, in RELEASE_TARGETS order. */
  bundles: PackedTarball[];
  bundleSums: string;
}

function git(root: string, args: string[]): string {
  const result = Bun.spawnSync(["git", ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0)
    throw new ReleaseError(`${root} is not a git checkout (git ${args.join(" ")}: ${result.stderr.toString().trim()})`);
  return result.stdout.toString();
}

/** Committed and nothing else: a release must be reproducible from its commit. */
export function checkCleanTree(root: string): void {
  const changes = git(root, ["status", "--porcelain", "--untracked-files=all"]).split("\n").filter(Boolean);
  if (changes.length === 0) return;
  const shown = changes.slice(0, 10).map((line) => `  ${line}`);
  if (changes.length > shown.length) shown.push(`  … and ${changes.length - shown.length} more`);
  throw new ReleaseError(
    `the working tree has uncommitted changes; commit or stash them before packing a release:\n${shown.join("\n")}`,
  );
}

/** The version is package.json's; it must be semver, and a `v…` tag on HEAD must name it. */
export function checkVersion(version: string, tagsOnHead: string[]): void {
  if (!SEMVER.test(version))
    throw new ReleaseError(`package.json version "${version}" is not a semver version (x.y.z)`);
  const other = tagsOnHead.filter((tag) => /^v\d/.test(tag) && tag !== `v${version}`);
  if (other.length > 0)
    throw new ReleaseError(
      `HEAD is tagged ${other.join(", ")} but package.json says ${version}; the tag and the version must agree`,
    );
}

/** The release target names must be exactly what the launcher computes for those machines. */
export function checkTargetNames(targets: readonly ReleaseTarget[]): void {
  for (const t of targets) {
    const computed = targetName({ os: t.os, cpu: t.cpu, musl: t.libc === "musl" });
    if (computed !== t.name)
      throw new ReleaseError(`release target ${t.name} would be looked up by the launcher as ${computed}`);
  }
}

/** `typebox/schema` → `typebox`, `@scope/pkg/x` → `@scope/pkg`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * What the API needs, found rather than listed: every file `src/api.ts` reaches, types included
 * (TypeScript's own file list, so a consumer's type-checker finds every imported type), and the
 * packages it imports at run time (the bundler's view, so type-only imports add no dependency).
 */
export async function apiClosure(
  root: string,
  manifest: RepoManifest,
): Promise<{ files: string[]; dependencies: Record<string, string> }> {
  // A tsconfig of one file that extends the repository's; it sits under node_modules so that
  // `types: ["bun"]` resolves as it does for the repository.
  const scratch = join(root, "node_modules", ".cache", "skill-central-release");
  mkdirSync(scratch, { recursive: true });
  const tsconfig = join(scratch, `api-closure-${process.pid}.json`);
  // Workers the API starts are not imported, so they are entries of their own.
  const entries = [API_ENTRY, ...WORKER_ENTRIES].map((entry) => join(root, entry));
  writeFileSync(tsconfig, JSON.stringify({ extends: join(root, "tsconfig.json"), files: entries, include: [] }));
  let listed: string[];
  try {
    const tsc = Bun.spawnSync([join(root, "node_modules", ".bin", "tsc"), "-p", tsconfig, "--listFilesOnly"], {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = tsc.stdout.toString();
    if (tsc.exitCode !== 0) {
      const errors = out
        .split("\n")
        .filter((line) => line.includes("error"))
        .slice(0, 5)
        .join("\n");
      throw new ReleaseError(
        `listing the API's files with tsc failed (is \`bun install\` done?):\n${errors}${tsc.stderr}`,
      );
    }
    listed = out.split("\n").filter(Boolean);
  } finally {
    rmSync(tsconfig, { force: true });
  }
  const files: string[] = [];
  for (const path of listed) {
    const rel = relative(root, path).split(sep).join("/");
    if (rel.startsWith("node_modules/") || rel.startsWith("../")) continue; // packages and TypeScript's own libraries
    if (rel === "package.json") continue; // src/version.ts reads the version: the generated manifest has it
    if (!rel.startsWith("src/"))
      throw new ReleaseError(`the API imports ${rel}, outside src/; the package would not have it`);
    files.push(rel);
  }

  const build = await Bun.build({
    entrypoints: entries,
    target: "bun",
    packages: "external",
    metafile: true,
    throw: false,
  });
  if (!build.success || !build.metafile)
    throw new ReleaseError(`bundling the API failed:\n${build.logs.map(String).join("\n")}`);
  const declared = manifest.dependencies ?? {};
  const dependencies: Record<string, string> = {};
  for (const [input, { imports }] of Object.entries(build.metafile.inputs)) {
    const rel = relative(root, resolve(input)).split(sep).join("/");
    if (!files.includes(rel)) throw new ReleaseError(`the bundler reached ${rel}, which TypeScript did not list`);
    for (const { path, external } of imports) {
      if (!external || isBuiltin(path) || path === "bun" || path.startsWith("bun:")) continue;
      const name = packageOf(path);
      const range = declared[name];
      if (range === undefined)
        throw new ReleaseError(`${rel} imports ${name}, which is not in package.json's dependencies`);
      dependencies[name] = range;
    }
  }
  return {
    files: files.sort(),
    dependencies: Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b))),
  };
}

function descriptive(manifest: RepoManifest): Record<string, unknown> {
  return Object.fromEntries(DESCRIPTIVE_FIELDS.filter((f) => manifest[f] !== undefined).map((f) => [f, manifest[f]]));
}

export function platformManifest(target: ReleaseTarget, manifest: RepoManifest): Record<string, unknown> {
  return {
    name: platformPackageName(target.name),
    version: manifest.version,
    description: `The ${target.name} executable of ${MAIN_PACKAGE}. Install ${MAIN_PACKAGE}, which picks the right one.`,
    ...descriptive(manifest),
    os: [target.os],
    cpu: [target.cpu],
    ...(target.libc && { libc: [target.libc] }),
    // Yarn's PnP would otherwise keep the binary inside a zip, where it cannot be executed.
    preferUnplugged: true,
  };
}

export function mainManifest(
  manifest: RepoManifest,
  dependencies: Record<string, string>,
  targets: readonly ReleaseTarget[],
): Record<string, unknown> {
  return {
    name: MAIN_PACKAGE,
    version: manifest.version,
    description: manifest.description,
    // The MCP Registry checks that the npm package names the server.json entry (server.json).
    ...(typeof manifest.mcpName === "string" && { mcpName: manifest.mcpName }),
    ...(manifest.keywords && { keywords: manifest.keywords }),
    ...descriptive(manifest),
    type: "module",
    bin: { [MAIN_PACKAGE]: LAUNCHER_PATH },
    exports: { ".": `./${API_ENTRY}`, "./package.json": "./package.json" },
    engines: { ...manifest.engines, node: LAUNCHER_NODE },
    dependencies,
    optionalDependencies: Object.fromEntries(targets.map((t) => [platformPackageName(t.name), manifest.version])),
  };
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

async function bundleLauncher(outfile: string): Promise<void> {
  const build = await Bun.build({
    entrypoints: [LAUNCHER_ENTRY],
    target: "node",
    format: "esm",
    banner:
      "#!/usr/bin/env node\n// skill-central's npm launcher, generated from script/launcher/launcher.ts by script/release-pack.ts.",
    throw: false,
  });
  const output = build.outputs[0];
  if (!build.success || !output)
    throw new ReleaseError(`bundling the launcher failed:\n${build.logs.map(String).join("\n")}`);
  mkdirSync(dirname(outfile), { recursive: true });
  await Bun.write(outfile, output);
  chmodSync(outfile, 0o755);
}

/** `bun pm pack` in a staged package folder: npm's tarball layout, file modes kept (the binaries stay executable). */
async function pack(stage: string, outDir: string): Promise<string> {
  const proc = Bun.spawn([process.execPath, "pm", "pack", "--destination", outDir, "--quiet", "--ignore-scripts"], {
    cwd: stage,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new ReleaseError(`bun pm pack failed in ${stage}:\n${stdout}${stderr}`);
  // --quiet prints the tarball's file name (`<name>-<version>.tgz`), nothing else.
  return join(outDir, basename(stdout.trim()));
}

/** Runs `jobs` with at most `limit` at once, keeping their order in the result. */
async function pooled<T>(limit: number, jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

/** Reads the manifest back out of each tarball: what a registry and an installer will see. */
async function verifyTarballs(
  tarballs: PackedTarball[],
  version: string,
  targets: readonly ReleaseTarget[],
): Promise<void> {
  const expectedOptional = Object.fromEntries(targets.map((t) => [platformPackageName(t.name), version]));
  for (const tarball of tarballs) {
    const files = await new Bun.Archive(await Bun.file(tarball.path).bytes()).files([
      "package/package.json",
      "package/bin/*",
    ]);
    const manifest = (await files.get("package/package.json")?.json()) as
      | { name?: string; version?: string; optionalDependencies?: Record<string, string> }
      | undefined;
    if (manifest?.name !== tarball.name || manifest.version !== version) {
      throw new ReleaseError(
        `${basename(tarball.path)} holds ${manifest?.name}@${manifest?.version}, not ${tarball.name}@${version}`,
      );
    }
    const target = targets.find((t) => platformPackageName(t.name) === tarball.name);
    const binary = target ? `package/${binaryPathInPackage(target.os)}` : `package/${LAUNCHER_PATH}`;
    if (!files.has(binary))
      throw new ReleaseError(`${basename(tarball.path)} has no ${binary.slice("package/".length)}`);
    if (!target && JSON.stringify(manifest.optionalDependencies) !== JSON.stringify(expectedOptional)) {
      throw new ReleaseError(
        `${basename(tarball.path)} pins ${JSON.stringify(manifest.optionalDependencies)}, not every target at ${version}`,
      );
    }
  }
}

/** Removes what an earlier pack left, and only that: `--out` may name a folder with other files. */
function clearOutDir(outDir: string, extension: ".tgz" | ".mcpb"): void {
  mkdirSync(outDir, { recursive: true });
  for (const name of readdirSync(outDir)) {
    if (name === "SHA256SUMS" || (name.startsWith(`${MAIN_PACKAGE}-`) && name.endsWith(extension)))
      rmSync(join(outDir, name), { force: true });
  }
}

async function writeSums(dir: string, files: PackedTarball[]): Promise<string> {
  const sums = (await Promise.all(files.map(async (f) => `${await sha256File(f.path)}  ${basename(f.path)}\n`))).join(
    "",
  );
  await Bun.write(join(dir, "SHA256SUMS"), sums);
  return sums;
}

export async function packRelease(options: PackOptions = {}): Promise<PackResult> {
  const root = options.root ?? REPO_ROOT;
  const outDir = options.outDir ?? NPM_DIST_DIR;
  const bundleDir = options.bundleDir ?? MCPB_DIST_DIR;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const targets = RELEASE_TARGETS;

  checkBundlePlatform(process.platform);
  checkCleanTree(root);
  const manifest = (await Bun.file(join(root, "package.json")).json()) as RepoManifest;
  const version = manifest.version;
  checkVersion(version, git(root, ["tag", "--points-at", "HEAD"]).split("\n").filter(Boolean));
  checkTargetNames(targets);
  const api = await apiClosure(root, manifest);

  const stageRoot = mkdtempSync(join(tmpdir(), "skill-central-release-stage-"));
  try {
    const stages: { name: string; dir: string }[] = [];
    const bundleStages: { target: ReleaseTarget; dir: string }[] = [];
    const host = targetName(thisMachine());
    for (const target of targets) {
      const name = platformPackageName(target.name);
      const dir = join(stageRoot, name);
      const built = await buildBinary({ outfile: join(dir, binaryPathInPackage(target.os)), target });
      if (target.name === host) {
        const reported = Bun.spawnSync([built.outfile, "--version"], {
          stdout: "pipe",
          stderr: "pipe",
          env: { PATH: process.env.PATH ?? "" },
          timeout: 30_000,
        });
        const said = reported.stdout.toString().trim();
        if (reported.exitCode !== 0 || said !== version)
          throw new ReleaseError(`the ${target.name} binary reports version "${said}", not ${version}`);
      }
      writeJson(join(dir, "package.json"), platformManifest(target, manifest));
      writeFileSync(
        join(dir, "README.md"),
        `# ${name}\n\nThe ${target.name} executable of [${MAIN_PACKAGE}](https://www.npmjs.com/package/${MAIN_PACKAGE}). Install \`${MAIN_PACKAGE}\` (or run \`npx -y ${MAIN_PACKAGE} mcp\`); it installs this package on ${target.name} and runs the binary.\n`,
      );
      log(`built ${name}: ${formatMiB(built.bytes)} in ${(built.ms / 1000).toFixed(1)} s`);
      stages.push({ name, dir });
      const bundleStage = join(stageRoot, "mcpb", target.name);
      await stageBundle(root, bundleStage, target, manifest, built.outfile);
      bundleStages.push({ target, dir: bundleStage });
    }

    const mainDir = join(stageRoot, MAIN_PACKAGE);
    for (const file of api.files) cpSync(join(root, file), join(mainDir, file));
    cpSync(join(root, "skills"), join(mainDir, "skills"), { recursive: true });
    if (existsSync(join(root, "README.md"))) cpSync(join(root, "README.md"), join(mainDir, "README.md"));
    await bundleLauncher(join(mainDir, LAUNCHER_PATH));
    writeJson(join(mainDir, "package.json"), mainManifest(manifest, api.dependencies, targets));
    stages.push({ name: MAIN_PACKAGE, dir: mainDir });
    log(
      `staged ${MAIN_PACKAGE}: launcher, ${api.files.length} API files, skills/; dependencies ${Object.keys(api.dependencies).join(", ")}`,
    );

    clearOutDir(outDir, ".tgz");
    // gzip is single-threaded: two packs at once use both cores.
    const tarballs = await pooled(
      2,
      stages.map((stage) => async (): Promise<PackedTarball> => {
        const started = performance.now();
        const path = await pack(stage.dir, outDir);
        const bytes = Bun.file(path).size;
        log(`packed ${basename(path)}: ${formatMiB(bytes)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
        return { name: stage.name, path, bytes };
      }),
    );
    await verifyTarballs(tarballs, version, targets);

    const sums = await writeSums(outDir, tarballs);

    clearOutDir(bundleDir, ".mcpb");
    // Each `mcpb pack` zips one binary on one core (and `mcpb sign` hashes it): two at once.
    const bundles = await pooled(
      2,
      bundleStages.map((stage) => async (): Promise<PackedTarball> => {
        const started = performance.now();
        const path = join(bundleDir, bundleFileName(stage.target, version));
        await packBundle(root, stage.dir, path, options.signing);
        const bytes = Bun.file(path).size;
        log(
          `packed ${basename(path)}${options.signing ? " (signed)" : ""}: ${formatMiB(bytes)} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
        return { name: `${MAIN_PACKAGE}-${stage.target.name}`, path, bytes };
      }),
    );
    const bundleSums = await writeSums(bundleDir, bundles);
    return { version, tarballs, sums, bundles, bundleSums };
  } finally {
    rmSync(stageRoot, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  let flags: {
    out?: string;
    "mcpb-out"?: string;
    "sign-cert"?: string;
    "sign-key"?: string;
    "sign-intermediate"?: string[];
  };
  try {
    flags = parseArgs({
      args: process.argv.slice(2),
      options: {
        out: { type: "string" },
        "mcpb-out": { type: "string" },
        "sign-cert": { type: "string" },
        "sign-key": { type: "string" },
        "sign-intermediate": { type: "string", multiple: true },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`release-pack: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const started = performance.now();
  try {
    const signing = bundleSigning(
      { key: flags["sign-key"], cert: flags["sign-cert"], intermediates: flags["sign-intermediate"] },
      process.env,
      existsSync,
    );
    const result = await packRelease({
      ...(flags.out && { outDir: resolve(flags.out) }),
      ...(flags["mcpb-out"] && { bundleDir: resolve(flags["mcpb-out"]) }),
      ...(signing && { signing }),
    });
    for (const t of result.tarballs) process.stdout.write(`${t.path}\n`);
    process.stdout.write(`${join(dirname(result.tarballs[0]!.path), "SHA256SUMS")}\n`);
    for (const b of result.bundles) process.stdout.write(`${b.path}\n`);
    process.stdout.write(`${join(dirname(result.bundles[0]!.path), "SHA256SUMS")}\n`);
    process.stderr.write(
      `packed ${result.tarballs.length} packages and ${result.bundles.length} bundles at ${result.version} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  } catch (error) {
    if (!(error instanceof ReleaseError || error instanceof BundleError)) throw error;
    process.stderr.write(`release-pack: ${error.message}\n`);
    process.exit(1);
  }
}
