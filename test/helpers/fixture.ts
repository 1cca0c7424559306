import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

/**
 * Writes a file of secrets (bearer tokens, a metrics token) as an operator should: readable by
 * its owner only (0600), so the server has no reason to warn about it. Returns its path.
 */
export function writeTokenFile(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** A minimal valid prompt skill file. */
export function promptSkill(id: string, extra: Record<string, string> = {}): string {
  const fields = { description: `The ${id} skill`, type: "prompt", prompt: `Body of ${id}`, ...extra };
  return `${[`id: ${id}`, ...Object.entries(fields).map(([k, v]) => `${k}: ${v}`)].join("\n")}\n`;
}
