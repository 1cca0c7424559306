/** The built-in layer: where its skills live, from source and inside the compiled binary, and its name and priority. */
import { join } from "node:path";

/**
 * Where the built-in skills live.
 *
 * - From source or an installed package (`bunx skill-central`, `node_modules/skill-central`):
 *   the `skills/` folder beside `src/`, two levels up from this file (`src/config/`).
 * - Inside a compiled binary: `script/build.ts` embeds the folder with `compile.assets`, which puts
 *   it at `import.meta.dir + "/skills"`. In a binary every bundled module's `import.meta.dir` is
 *   the embedded root (`/$bunfs/root` here; a different root on Windows), and Bun serves it to
 *   `Bun.Glob.scan`, `node:fs` and `Bun.file()` like a real folder, so discovery and reading need
 *   no special case (checked with Bun 1.4.4; the embedded files are also listed in
 *   `Bun.embeddedFiles` as `skills/<file>`, which we do not need).
 *
 * `Bun.isStandaloneExecutable` tells the two apart without allocating a Blob per embedded file.
 */
export function builtinSkillsDir(): string {
  const here = import.meta.dir;
  return Bun.isStandaloneExecutable ? join(here, BUILTIN_ASSET_DIR) : join(here, "..", "..", BUILTIN_ASSET_DIR);
}

/** The folder name, shared with the build script: the repository folder and the embedded path. */
export const BUILTIN_ASSET_DIR = "skills";
export const BUILTIN_LAYER_NAME = "builtin";
export const BUILTIN_PRIORITY = 0;
