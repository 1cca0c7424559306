/**
 * One config file, user's or project's: where each is found, and reading it key by key, each
 * top-level key by its block's module, with every problem placed at its line.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { closest } from "../suggest.ts";
import { describeFsError } from "../storage/fs-errors.ts";
import { parseYamlDocument } from "../storage/parse-document.ts";
import type { ConfigOrigin } from "./config-origin.ts";
import { under, type ReportProblem } from "./config-problem.ts";
import { type FileSettings, readFileKey } from "./file-keys.ts";
import { readLayers, type LayerDeclaration } from "./read-layers.ts";
import { CATALOG_KEYS, type CatalogKey, readCatalogKey, type CatalogSettings } from "./catalog-settings.ts";
import { readAuditSettings, type AuditSettings } from "./audit-settings.ts";
import { readChecksSettings, type ChecksSettings } from "./checks-settings.ts";
import { readElicitationSettings, type ElicitationSettings } from "./elicitation-settings.ts";
import { readEvalSettings, type EvalSettings } from "./eval-settings.ts";
import { readHttpSettings, type DeclaredHttpSettings } from "./http-settings.ts";
import { readUsageSettings, type UsageSettings } from "./usage-settings.ts";
import { readStoreSetting, type StoreSetting } from "./store-settings.ts";
import { readPolicySettings, type PolicySettings } from "./policy-settings.ts";

/** One config file, read and checked; keys it did not have are absent. */
export interface ConfigFile extends FileSettings {
  file: string;
  /** Set when the whole file was ignored (unreadable, invalid YAML, not a mapping): why. */
  broken?: string;
  brokenAt?: SourcePosition;
  layers?: LayerDeclaration[];
  /** `catalog`, `toolSkills`, `toolCap`, `tokenBudget`: how skills reach tool-only and capped clients. */
  catalog?: Partial<CatalogSettings>;
  /** `elicitation`: asking for missing required arguments; `stateKeyFile` absolute. */
  elicitation?: Partial<ElicitationSettings>;
  /** `http`: what `mcp --http` needs beyond its flags (src/config/http-settings.ts). */
  http?: DeclaredHttpSettings;
  /** `audit`: what the audit gate blocks, where, and what a person let through (audit-settings.ts). */
  audit?: Partial<AuditSettings>;
  /** `usage`: where the usage history is kept (docs/usage.md); `store` absolute or "off". */
  usage?: Partial<UsageSettings>;
  /** `checks`: findings of validate and doctor silenced, each with its reason (checks-settings.ts). */
  checks?: Partial<ChecksSettings>;
  /** `store`: the state store (a file or a postgres:// URL; store-settings.ts), the user's alone. */
  store?: StoreSetting;
  /** `policy`: what every layer must meet, whoever declared it (policy-settings.ts); tighten-only. */
  policy?: PolicySettings;
  /** `eval`: where `skill-central eval` writes its runs and the board reads them; `workspace` absolute. */
  eval?: EvalSettings;
}

export const USER_CONFIG_DIR = ".skill-central";
export const USER_CONFIG_NAMES = ["config.yaml", "config.yml"] as const;
export const PROJECT_CONFIG_NAMES = ["skill-central.yaml", "skill-central.yml"] as const;

export function userConfigPath(home: string): string | undefined {
  for (const name of USER_CONFIG_NAMES) {
    const file = join(home, USER_CONFIG_DIR, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

export function projectConfigPath(cwd: string): string | undefined {
  return PROJECT_CONFIG_NAMES.map((name) => join(cwd, name)).find((file) => existsSync(file));
}

export function expandPath(path: string, base: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(home, path.slice(2));
  // `resolve`, not `join`: an absolute path is taken as written, not appended to `base`.
  return resolve(base, path).replace(/[\\/]+$/, "") || "/";
}

/** Where a top-level key's reader puts what it read, and how it reports: paths relative to the key. */
interface KeyContext {
  config: ConfigFile;
  file: string;
  /** The user's own config, or a project's: some keys are the user's alone (config-origin.ts). */
  origin: ConfigOrigin;
  /** A path as written, made absolute against the config file's folder (`~` expanded). */
  resolvePath: (path: string) => string;
  locate: (path: readonly (string | number)[]) => SourcePosition | undefined;
  /** Problems at paths relative to the key (`["keepDays"]` under `usage`). */
  at: ReportProblem;
  /** Problems at paths relative to the file (the readers of the file's own keys say `["pageSize"]`). */
  problem: ReportProblem;
}

const fileKey =
  (key: "builtin" | "pageSize" | "enable") =>
  (value: unknown, { config, problem }: KeyContext) =>
    Object.assign(config, readFileKey(key, value, problem));

const catalogKey =
  (key: CatalogKey) =>
  (value: unknown, { config, problem }: KeyContext) => {
    const catalog = readCatalogKey(key, value, config.catalog, problem);
    if (catalog !== undefined) config.catalog = catalog;
  };

/** Every top-level key of a config file, in the order `known keys` lists them, and the module that reads it. */
const KEY_READERS: Record<string, (value: unknown, ctx: KeyContext) => void> = {
  layers: (value, { config, resolvePath, at }) => {
    const layers = readLayers(value, resolvePath, at);
    if (layers !== undefined) config.layers = layers;
  },
  builtin: fileKey("builtin"),
  pageSize: fileKey("pageSize"),
  ...Object.fromEntries(CATALOG_KEYS.map((key) => [key, catalogKey(key)])),
  elicitation: (value, { config, resolvePath, at }) => {
    config.elicitation = readElicitationSettings(value, resolvePath, at);
  },
  http: (value, { config, file, resolvePath, locate, at }) => {
    config.http = readHttpSettings(value, { file, resolvePath, locate, report: at });
  },
  usage: (value, { config, resolvePath, at, origin }) => {
    config.usage = readUsageSettings(value, resolvePath, at, origin);
  },
  store: (value, { config, resolvePath, at, origin }) => {
    const store = readStoreSetting(value, resolvePath, at, origin);
    if (store !== undefined) config.store = store;
  },
  enable: fileKey("enable"),
  audit: (value, { config, at }) => {
    config.audit = readAuditSettings(value, at);
  },
  checks: (value, { config, file, locate, at }) => {
    config.checks = readChecksSettings(value, file, locate, at);
  },
  policy: (value, { config, resolvePath, at }) => {
    const policy = readPolicySettings(value, at, resolvePath);
    if (policy !== undefined) config.policy = policy;
  },
  eval: (value, { config, resolvePath, at }) => {
    const settings = readEvalSettings(value, resolvePath, at);
    if (settings !== undefined) config.eval = settings;
  },
};
const KNOWN_KEYS = Object.keys(KEY_READERS);

/**
 * Reads a config file through the same YAML path as skill files (fast parse, duplicate keys are
 * errors, positions on demand); each top-level key is read by its block's module (KEY_READERS),
 * against the block's schema (config-schema.ts). `origin` says whose file it is: a file not known
 * to be the user's own is read as a project's, which may not set the user's keys.
 */
export async function readConfigFile(
  file: string,
  home: string,
  report: (d: Diagnostic) => void,
  origin: ConfigOrigin = "project",
): Promise<ConfigFile> {
  const config: ConfigFile = { file };
  let text: string;
  try {
    text = await Bun.file(file).text();
  } catch (error) {
    return { file, broken: `cannot read it: ${describeFsError(error)}` };
  }
  const parsed = parseYamlDocument({ file, text });
  if (!parsed.ok) {
    const broken = { file, broken: parsed.diagnostic.message };
    return parsed.diagnostic.position ? { ...broken, brokenAt: parsed.diagnostic.position } : broken;
  }
  const { data, locateKey } = parsed.doc;
  // Every block reader reports a ConfigProblem; placed only here (locating runs the slower, precise YAML parse).
  const problem: ReportProblem = ({ message, path, hint, severity = "warning" }) =>
    report({
      severity,
      code: "config",
      file,
      position: locateKey(path),
      message,
      ...(hint !== undefined && { hint }),
    });
  if (data === null || data === undefined) return config;
  if (typeof data !== "object" || Array.isArray(data)) {
    return { file, broken: "expected a mapping with keys like layers, builtin", brokenAt: { line: 1, column: 1 } };
  }
  const resolvePath = (path: string) => expandPath(path, dirname(file), home);
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const at = under([key], problem);
    // Own keys only: `constructor:` or `toString:` in a file is an unknown key, not Object's.
    const read = Object.hasOwn(KEY_READERS, key) ? KEY_READERS[key] : undefined;
    if (read !== undefined) {
      read(value, { config, file, origin, resolvePath, locate: locateKey, at, problem });
      continue;
    }
    const meant = closest(key, KNOWN_KEYS);
    // A misspelt `layers:` drops every layer under it: an error, not a warning (a dropped layer fails validate).
    const dropped = meant === "layers" && Array.isArray(value) ? value.length : 0;
    at({
      message: `unknown key "${key}" is ignored (known keys: ${KNOWN_KEYS.join(", ")})${dropped > 0 ? `, so the ${dropped === 1 ? "layer" : `${dropped} layers`} under it ${dropped === 1 ? "is" : "are"} not loaded` : ""}`,
      path: [],
      ...(meant ? { hint: `did you mean "${meant}"?` } : {}),
      severity: dropped > 0 ? "error" : "warning",
    });
  }
  return config;
}
