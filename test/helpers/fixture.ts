import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A throwaway project folder with an isolated HOME beside it. */
export interface Fixture {
  root: string;
  cwd: string;
  home: string;
  write(path: string, text: string): string;
  remove(path: string): void;
  cleanup(): void;
}

/** `files` paths starting with `~/` go into the fixture's HOME, the rest into the project. */
export function makeFixture(files: Record<string, string> = {}): Fixture {
  const root = mkdtempSync(join(tmpdir(), "skill-central-test-"));
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const resolve = (path: string) => (path.startsWith("~/") ? join(home, path.slice(2)) : join(cwd, path));
  const fixture: Fixture = {
    root,
    cwd,
    home,
    write(path, text) {
      const full = resolve(path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
      return full;
    },
    remove(path) {
      rmSync(resolve(path), { force: true, recursive: true });
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  for (const [path, text] of Object.entries(files)) fixture.write(path, text);
  return fixture;
}

/** A minimal valid prompt skill file. */
export function promptSkill(id: string, extra: Record<string, string> = {}): string {
  const fields = { description: `The ${id} skill`, type: "prompt", prompt: `Body of ${id}`, ...extra };
  return `${[`id: ${id}`, ...Object.entries(fields).map(([k, v]) => `${k}: ${v}`)].join("\n")}\n`;
}
