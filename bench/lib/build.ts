/**
 * The two binaries under test, compiled by the project's own build script (script/build.ts) so
 * that the floor and skill-central get exactly the same flags: nothing is restated here.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, compileExecutable } from "../../script/build.ts";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
export const OUT_DIR = join(REPO_ROOT, "bench", ".out");

export interface Built {
  path: string;
  /** How it was produced, for the report. */
  how: string;
}

export async function buildFloor(): Promise<Built> {
  mkdirSync(OUT_DIR, { recursive: true });
  const { outfile } = await compileExecutable({
    entry: join(REPO_ROOT, "bench", "floor", "server.ts"),
    outfile: join(OUT_DIR, "floor"),
  });
  return { path: outfile, how: "compileExecutable() from script/build.ts on bench/floor/server.ts" };
}

export async function buildOurs(): Promise<Built> {
  mkdirSync(OUT_DIR, { recursive: true });
  const { outfile } = await buildBinary({ outfile: join(OUT_DIR, "skill-central") });
  return { path: outfile, how: "buildBinary() from script/build.ts" };
}
