/**
 * Where the usage history is kept and for how long (docs/usage.md): `usage: { store, keepDays }`
 * in the user's config file. The default store is one file per user, in the user's state folder,
 * so every server process (one per IDE window) adds to the same one. Both keys are the user's
 * alone (config-origin.ts): the store holds every project's history, so a cloned project's config
 * may neither move it nor prune it (`keepDays: 1` would delete every project's uses).
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { ConfigOrigin } from "./config-origin.ts";
import type { ReportProblem } from "./config-problem.ts";
import { type BlockOf, NON_BLANK, readBlock } from "./config-schema.ts";
import { mayDeclare, type MergeRules, mergeSettings } from "./merge-settings.ts";

export interface UsageSettings {
  /** The store file (absolute), or "off": nothing is recorded and no file is created. */
  store: string | "off";
  /** Uses older than this many days are deleted. */
  keepDays: BlockOf<typeof KEEP_DAYS>;
}

/** Both keys are the user's alone (the header says why). */
const USAGE_RULES: MergeRules<UsageSettings> = { store: "user", keepDays: "user" };

export const DEFAULT_KEEP_DAYS = 180;
export const MAX_KEEP_DAYS = 36_500;
export const USAGE_STORE_NAME = "usage.db";

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

/** The defaults, then the user's own declarations (a project's config sets none: USAGE_RULES). */
export function mergeUsageSettings(
  defaults: UsageSettings,
  user: Partial<UsageSettings> | undefined,
  project: Partial<UsageSettings> | undefined,
): UsageSettings {
  return mergeSettings(USAGE_RULES, defaults, [user], { settings: project });
}

export const USAGE_HINT = "usage: { store: off } turns recording off; usage: { store: ./usage.db, keepDays: 90 }";

const OFF = [{ const: "off" }, { const: false }] as const;

const KEEP_DAYS = {
  type: "integer",
  minimum: 1,
  maximum: MAX_KEEP_DAYS,
  errorMessage: `must be a whole number of days from 1 to ${MAX_KEEP_DAYS}`,
  hint: USAGE_HINT,
} as const;

/** `usage:` in a config file: `off` (or `false`), or `{ store, keepDays }`. */
export const UsageBlock = {
  $id: "usage",
  anyOf: [
    ...OFF,
    {
      type: "object",
      additionalProperties: false,
      properties: {
        store: {
          anyOf: [...OFF, NON_BLANK],
          errorMessage: "must be a path to a file, or off",
          hint: USAGE_HINT,
        },
        keepDays: KEEP_DAYS,
      },
    },
  ],
  errorMessage: "must be off, or a mapping { store, keepDays }",
  hint: USAGE_HINT,
} as const;

/**
 * The `usage:` block of one config file; undefined when it is ignored (each problem reported).
 * `resolvePath` turns a written path into an absolute one as the rest of the file's paths are
 * (relative to the file, `~` expanded). In a project's config each key is refused with a warning
 * at it: what is left is `{}`.
 */
export function readUsageSettings(
  value: unknown,
  resolvePath: (path: string) => string,
  report: ReportProblem,
  origin: ConfigOrigin,
): Partial<UsageSettings> | undefined {
  const block = readBlock(UsageBlock, value, report, { key: "usage" });
  if (block === undefined) return undefined;
  // `usage: off` (or `false`) is the short way to turn recording off.
  if (block === "off" || block === false)
    return mayDeclare(USAGE_RULES, "store", origin, { name: "usage.store", path: [], report }) ? { store: "off" } : {};
  const settings: Partial<UsageSettings> = {};
  const may = (key: keyof UsageSettings) =>
    block[key] !== undefined && mayDeclare(USAGE_RULES, key, origin, { name: `usage.${key}`, path: [key], report });
  if (may("store"))
    settings.store = block.store === "off" || block.store === false ? "off" : resolvePath(block.store!.trim());
  if (may("keepDays")) settings.keepDays = block.keepDays;
  return settings;
}
