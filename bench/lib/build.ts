/**
 * Compiles the two binaries under test with the same flags: the floor always, and ours through
 * the project's own build (`bun run build` → dist/skill-central) when it exists, else directly.
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
export const OUT_DIR = join(REPO_ROOT, "bench", ".out");

/** The flags our release binary is built with (src/build.ts's `buildBinary`); the floor must match them. */
export const COMPILE_FLAGS = [
  "--compile",
  "--minify",
  "--bytecode",
  "--format=esm",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-dotenv",
] as const;

const BUILD_TIMEOUT_MS = 180_000;

export interface Built {
  path: string;
  /** How it was produced, for the report. */
  how: string;
}

function run(cmd: string[]): { ok: boolean; output: string } {
  const result = Bun.spawnSync(cmd, { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe", timeout: BUILD_TIMEOUT_MS });
  const output = `${result.stdout.toString()}${result.stderr.toString()}`.trim();
  return { ok: result.exitCode === 0, output };
}

function compile(entry: string, outfile: string, extra: string[] = []): void {
  mkdirSync(OUT_DIR, { recursive: true });
  const cmd = ["bun", "build", ...COMPILE_FLAGS, entry, ...extra, "--outfile", outfile];
  const { ok, output } = run(cmd);
  if (!ok) throw new Error(`build failed: ${cmd.join(" ")}\n${output}`);
}

export function buildFloor(): Built {
  const path = join(OUT_DIR, "floor");
  compile("bench/floor/server.ts", path);
  return { path, how: `bun build ${COMPILE_FLAGS.join(" ")} bench/floor/server.ts` };
}

type BuildBinary = (options: { outfile: string }) => Promise<{ outfile: string }>;

/** src/build.ts's `buildBinary({ outfile })`, if it exists: the exact release build, workers and all. */
async function projectBuildFunction(): Promise<BuildBinary | null> {
  const script = join(REPO_ROOT, "src", "build.ts");
  if (!existsSync(script)) return null;
  // Imported by path (not statically) so the harness keeps working while src/build.ts changes shape.
  const mod = (await import(script)) as Record<string, unknown>;
  return typeof mod.buildBinary === "function" ? (mod.buildBinary as BuildBinary) : null;
}

/** `bun run build` counts only if it succeeds and leaves a fresh dist/skill-central behind. */
function buildWithProjectScript(): Built | null {
  if (!existsSync(join(REPO_ROOT, "src", "build.ts"))) return null;
  const path = join(REPO_ROOT, "dist", "skill-central");
  const started = Date.now();
  const { ok, output } = run(["bun", "run", "build"]);
  const fresh = existsSync(path) && statSync(path).mtimeMs >= started - 1000;
  if (ok && fresh) return { path, how: "bun run build (src/build.ts) → dist/skill-central" };
  console.error(`[bench] bun run build did not produce a fresh dist/skill-central; compiling directly.\n${output.slice(-2000)}`);
  return null;
}

/** Our binary, built the way releases are: src/build.ts's function, else `bun run build`, else the CLI. */
export async function buildOurs(): Promise<Built> {
  const buildBinary = await projectBuildFunction();
  if (buildBinary) {
    mkdirSync(OUT_DIR, { recursive: true });
    const { outfile } = await buildBinary({ outfile: join(OUT_DIR, "skill-central") });
    return { path: outfile, how: "buildBinary() from src/build.ts" };
  }
  const viaScript = buildWithProjectScript();
  if (viaScript) return viaScript;
  const path = join(OUT_DIR, "skill-central");
  compile("src/cli.ts", path, ["--asset", "./skills"]);
  return { path, how: `bun build ${COMPILE_FLAGS.join(" ")} src/cli.ts --asset ./skills` };
}
