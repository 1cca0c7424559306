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
import { readStoreName, type StoreSetting } from "./store-settings.ts";
import { DEFAULT_BUFFER } from "../storage/usage-bounds.ts";

export interface UsageSettings {
  /**
   * The store: a file (absolute), a `postgres://` URL (from `usage.store` or the top-level
   * `store:`), or "off": nothing is recorded and no file is created.
   */
  store: string | "off";
  /** Uses older than this many days are deleted. */
  keepDays: BlockOf<typeof KEEP_DAYS>;
  /** Uses waiting at most while the store is down or locked; past it they are dropped and counted. */
  buffer: BlockOf<typeof BUFFER>;
  /** Where a PostgreSQL store's password is read (the top-level `store: { passwordEnv }`; default PGPASSWORD). */
  passwordEnv?: string;
}

/** Every key is the user's alone (the header says why). */
const USAGE_RULES: MergeRules<UsageSettings> = { store: "user", keepDays: "user", buffer: "user", passwordEnv: "user" };

export const DEFAULT_KEEP_DAYS = 180;
export const MAX_KEEP_DAYS = 36_500;
export const USAGE_STORE_NAME = "usage.db";
const DEFAULT_BUFFER_ROWS = DEFAULT_BUFFER;
const MAX_BUFFER_ROWS = 10_000_000;

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
  return {
    store: join(stateRoot(home, env, platform), USAGE_STORE_NAME),
    keepDays: DEFAULT_KEEP_DAYS,
    buffer: DEFAULT_BUFFER_ROWS,
  };
}

/**
 * The defaults, then the user's top-level `store:` (the state store, store-settings.ts), then the
 * user's `usage:` block, which wins for the usage history when it names a store (a project's
 * config sets none: USAGE_RULES).
 */
export function mergeUsageSettings(
  defaults: UsageSettings,
  user: Partial<UsageSettings> | undefined,
  project: Partial<UsageSettings> | undefined,
  stateStore?: StoreSetting,
): UsageSettings {
  // `usage.store` names its own store: the top-level `store:`'s password variable is not its.
  const fromStore: Partial<UsageSettings> | undefined = stateStore && {
    store: stateStore.store,
    ...(stateStore.passwordEnv !== undefined && user?.store === undefined && { passwordEnv: stateStore.passwordEnv }),
  };
  return mergeSettings(USAGE_RULES, defaults, [fromStore, user], { settings: project });
}

export const USAGE_HINT = "usage: { store: off } turns recording off; usage: { store: ./usage.db, keepDays: 90 }";

const OFF = [{ const: "off" }, { const: false }] as const;

const BUFFER = {
  type: "integer",
  minimum: 1,
  maximum: MAX_BUFFER_ROWS,
  errorMessage: `must be a whole number of uses from 1 to ${MAX_BUFFER_ROWS}`,
  hint: "usage: { buffer: 50000 }: how many uses wait for a store that is down",
} as const;

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
          errorMessage: "must be a path to a file, a postgres:// URL, or off",
          hint: USAGE_HINT,
        },
        keepDays: KEEP_DAYS,
        buffer: BUFFER,
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
  const may = (key: "store" | "keepDays" | "buffer") =>
    block[key] !== undefined && mayDeclare(USAGE_RULES, key, origin, { name: `usage.${key}`, path: [key], report });
  if (may("store")) {
    const store =
      block.store === "off" || block.store === false
        ? "off"
        : readStoreName(block.store!, resolvePath, report, "usage.store", ["store"]);
    if (store !== undefined) settings.store = store;
  }
  if (may("keepDays")) settings.keepDays = block.keepDays;
  if (may("buffer")) settings.buffer = block.buffer;
  return settings;
}
