/**
 * Where the usage history is kept and for how long (docs/usage.md): `usage: { store, keepDays }`
 * in a config file, the project's keys over the user's. The default store is one file per user,
 * in the user's state folder, so every server process (one per IDE window) adds to the same one.
 */
import { homedir } from "node:os";
import { join } from "node:path";

export interface UsageSettings {
  /** The store file (absolute), or "off": nothing is recorded and no file is created. */
  store: string | "off";
  /** Uses older than this many days are deleted. */
  keepDays: number;
}

export const DEFAULT_KEEP_DAYS = 180;
export const MAX_KEEP_DAYS = 36_500;
export const USAGE_STORE_NAME = "usage.db";

/** What one config file said; absent keys were not set (or were invalid, and reported). */
export type DeclaredUsageSettings = Partial<UsageSettings>;

type Env = Record<string, string | undefined>;

/**
 * skill-central's folder for state that should outlive a process but is not configuration:
 * `$XDG_STATE_HOME/skill-central` (else `~/.local/state/skill-central`) on Linux and the BSDs,
 * `~/Library/Application Support/skill-central` on macOS, `%LOCALAPPDATA%\skill-central` on
 * Windows.
 */
export function stateRoot(home: string = homedir(), env: Env = process.env, platform = process.platform): string {
  if (platform === "darwin") return join(home, "Library", "Application Support", "skill-central");
  if (platform === "win32") return join(env.LOCALAPPDATA || join(home, "AppData", "Local"), "skill-central");
  return join(env.XDG_STATE_HOME || join(home, ".local", "state"), "skill-central");
}

export function defaultUsageSettings(home?: string, env?: Env, platform?: NodeJS.Platform): UsageSettings {
  return { store: join(stateRoot(home, env, platform), USAGE_STORE_NAME), keepDays: DEFAULT_KEEP_DAYS };
}

/** Later sources win key by key: user config, then project config. */
export function mergeUsageSettings(
  defaults: UsageSettings,
  ...layers: readonly (DeclaredUsageSettings | undefined)[]
): UsageSettings {
  const merged = { ...defaults };
  for (const layer of layers) {
    if (layer?.store !== undefined) merged.store = layer.store;
    if (layer?.keepDays !== undefined) merged.keepDays = layer.keepDays;
  }
  return merged;
}

export const USAGE_HINT = "usage: { store: off } turns recording off; usage: { store: ./usage.db, keepDays: 90 }";

/**
 * The `usage:` block of one config file, or a problem. `resolvePath` turns a written path into an
 * absolute one as the rest of the file's paths are (relative to the file, `~` expanded).
 */
export function readUsageSettings(
  value: unknown,
  resolvePath: (path: string) => string,
): DeclaredUsageSettings | { problem: string } {
  // `usage: off` (or `false`) is the short way to turn recording off.
  if (value === "off" || value === false) return { store: "off" };
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { problem: "must be off, or a mapping { store, keepDays }" };
  const entries = value as Record<string, unknown>;
  const unknown = Object.keys(entries).find((k) => k !== "store" && k !== "keepDays");
  if (unknown !== undefined) return { problem: `has an unknown key "${unknown}" (known: store, keepDays)` };
  const settings: DeclaredUsageSettings = {};
  const { store, keepDays } = entries;
  if (store !== undefined) {
    if (store === "off" || store === false) settings.store = "off";
    else if (typeof store === "string" && store.trim() !== "") settings.store = resolvePath(store.trim());
    else return { problem: '"store" must be a path to a file, or off' };
  }
  if (keepDays !== undefined) {
    if (!Number.isInteger(keepDays) || (keepDays as number) < 1 || (keepDays as number) > MAX_KEEP_DAYS)
      return { problem: `"keepDays" must be a whole number of days from 1 to ${MAX_KEEP_DAYS}` };
    settings.keepDays = keepDays as number;
  }
  return settings;
}
