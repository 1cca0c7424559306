import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { closest } from "../suggest.ts";
import { describeFsError } from "../storage/fs-errors.ts";
import { parseYamlDocument } from "../storage/parse-document.ts";
import { under, type ConfigProblem, type ReportProblem } from "./config-problem.ts";
import { readFileKey } from "./file-keys.ts";
import { readVisibleTo } from "./read-visible-to.ts";
import { readSigners, SIGNERS_KEY } from "./read-signers.ts";
import { readWellKnownSource, WELL_KNOWN_ONLY_KEYS, type WellKnownSource } from "./read-well-known.ts";
import type { VisibleTo } from "./visible-to.ts";
import { CATALOG_KEYS, type CatalogKey, readCatalogKey, type DeclaredCatalogSettings } from "./catalog-settings.ts";
import { readAuditSettings, type AuditSettings } from "./audit-settings.ts";
import { readElicitationSettings, type ElicitationSettings } from "./elicitation-settings.ts";
import { readHttpSettings, type DeclaredHttpSettings } from "./http-settings.ts";
import { readUsageSettings, type DeclaredUsageSettings } from "./usage-settings.ts";

/**
 * Where a git layer's files come from, as declared. `url` is exactly what the config says and may
 * carry credentials: never print it (src/sources/git-url.ts redacts).
 */
export interface GitSource {
  url: string;
  /** A branch, tag or commit; `HEAD` (the remote's default branch) when not given. */
  ref: string;
  /** A folder inside the repository, `/`-separated, no leading `./` or trailing `/`; "" is the root. */
  path: string;
  /** Fetch in the background this often (milliseconds), for a layer without a lock entry. */
  refreshMs?: number;
  /** The allowed-signers file (absolute) whose keys must have signed the commit (docs/provenance.md). */
  signers?: string;
}

export interface LayerDeclaration {
  name: string;
  /** Absolute: resolved against the config file's folder, `~` expanded. Empty for a git layer. */
  path: string;
  priority: number;
  /** Set for a layer whose files come from a git repository instead of a folder. */
  git?: GitSource;
  /** Who may see the layer over HTTP (docs/layer-access.md); absent: everyone. */
  visibleTo?: VisibleTo;
  /** Set for a layer whose skills come from a well-known index (`url`; docs/well-known.md). */
  wellKnown?: WellKnownSource;
}

/** One config file, read and checked; keys it did not have are absent. */
export interface ConfigFile {
  file: string;
  /** Set when the whole file was ignored (unreadable, invalid YAML, not a mapping): why. */
  broken?: string;
  brokenAt?: SourcePosition;
  layers?: LayerDeclaration[];
  builtin?: boolean;
  pageSize?: number;
  /** `catalog`, `toolSkills`, `toolCap`, `tokenBudget`: how skills reach tool-only and capped clients. */
  catalog?: DeclaredCatalogSettings;
  /** `elicitation`: asking for missing required arguments; `stateKeyFile` absolute. */
  elicitation?: Partial<ElicitationSettings>;
  /** `http`: what `mcp --http` needs beyond its flags (src/config/http-settings.ts). */
  http?: DeclaredHttpSettings;
  /** `audit`: what the audit gate blocks, where, and what a person let through (audit-settings.ts). */
  audit?: Partial<AuditSettings>;
  /** `usage`: where the usage history is kept (docs/usage.md); `store` absolute or "off". */
  usage?: DeclaredUsageSettings;
  /** `enable`: ids of opt-in skills (`enabled: false`) this config switches on. */
  enable?: string[];
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

const KNOWN_KEYS = [
  "layers",
  "builtin",
  "pageSize",
  "catalog",
  "toolSkills",
  "toolCap",
  "tokenBudget",
  "elicitation",
  "http",
  "usage",
  "enable",
  "audit",
];
const LAYER_KEYS = [
  "name",
  "path",
  "priority",
  "git",
  "ref",
  "refresh",
  "visibleTo",
  "url",
  SIGNERS_KEY,
  ...WELL_KNOWN_ONLY_KEYS,
];
const GIT_ONLY_KEYS = ["ref", "refresh"];

/** The smallest background refresh interval: a shared remote is not polled more often. */
export const MIN_REFRESH_MS = 60_000;
const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `30m`, `1h`, `2d` → milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+)\s*([smhd])\s*$/.exec(text);
  return match ? Number(match[1]) * DURATION_UNITS[match[2]!]! : undefined;
}

/**
 * A folder inside a repository, normalised (`./skills/` → `skills`), or a reason it is not one.
 * Only the syntax is checked here; whether it exists is known once a commit is fetched.
 */
export function repoPathOrProblem(path: string): { path: string } | { problem: string } {
  const parts = path
    .replace(/\\/g, "/")
    .split("/")
    .filter((p) => p !== "" && p !== ".");
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path))
    return { problem: "must be a folder inside the repository (relative, like skills/team)" };
  if (parts.some((p) => p === ".." || p.toLowerCase() === ".git"))
    return { problem: 'must stay inside the repository (no ".." or ".git")' };
  return { path: parts.join("/") };
}

/** Refs that git would read as an option, a refspec or a revision expression are refused. */
function refProblem(ref: string): string | undefined {
  if (ref.startsWith("-")) return 'must not start with "-"';
  if (/[\s:^~?*[\\\x00-\x1f\x7f]|\.\.|@\{|\/\/|\.lock$|^\/|\/$/.test(ref))
    return "is not a valid branch, tag or commit name";
  return undefined;
}

/**
 * Reads a config file through the same YAML path as skill files (fast parse, duplicate keys are
 * errors, positions on demand) and checks every key by hand: messages here must be precise.
 */
export async function readConfigFile(file: string, home: string, report: (d: Diagnostic) => void): Promise<ConfigFile> {
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
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const at = under([key], problem);
    if (!KNOWN_KEYS.includes(key)) {
      const meant = closest(key, KNOWN_KEYS);
      // A misspelt `layers:` drops every layer under it: an error, not a warning (a dropped layer fails validate).
      const dropped = meant === "layers" && Array.isArray(value) ? value.length : 0;
      at({
        message: `unknown key "${key}" is ignored (known keys: ${KNOWN_KEYS.join(", ")})${dropped > 0 ? `, so the ${dropped === 1 ? "layer" : `${dropped} layers`} under it ${dropped === 1 ? "is" : "are"} not loaded` : ""}`,
        path: [],
        ...(meant ? { hint: `did you mean "${meant}"?` } : {}),
        severity: dropped > 0 ? "error" : "warning",
      });
    } else if (key === "builtin" || key === "pageSize" || key === "enable") {
      Object.assign(config, readFileKey(key, value, problem));
    } else if ((CATALOG_KEYS as readonly string[]).includes(key)) {
      const catalog = readCatalogKey(key as CatalogKey, value, config.catalog, problem);
      if (catalog !== undefined) config.catalog = catalog;
    } else if (key === "elicitation") {
      config.elicitation = readElicitationSettings(value, (path) => expandPath(path, dirname(file), home), at);
    } else if (key === "audit") {
      config.audit = readAuditSettings(value, at);
    } else if (key === "http") {
      config.http = readHttpSettings(value, {
        file,
        resolvePath: (path) => expandPath(path, dirname(file), home),
        locate: locateKey,
        report: at,
      });
    } else if (key === "usage") {
      config.usage = readUsageSettings(value, (path) => expandPath(path, dirname(file), home), at);
    } else if (key === "layers") {
      if (value === null) config.layers = [];
      else if (!Array.isArray(value))
        at({
          message: `"layers" must be a list of { name, path, priority }; ignored, so no layer of this file is loaded`,
          path: [],
          hint: "e.g. `- { name: team, path: ./skills, priority: 50 }` on the next line",
          severity: "error",
        });
      else {
        config.layers = readLayers(value, dirname(file), home, at);
      }
    }
  }
  return config;
}

/**
 * The layers of one file. A layer a mistake drops (no numeric priority, no path, a bad git or
 * url key, a second of one name) is an error, not a warning: `validate` must fail on it. Every
 * such drop is the last problem of its entry (`return void report(…)`), so that one is made an error.
 */
function readLayers(entries: unknown[], base: string, home: string, report: ReportProblem): LayerDeclaration[] {
  const layers: LayerDeclaration[] = [];
  const names = new Set<string>();
  entries.forEach((entry, index) => {
    const said: ConfigProblem[] = [];
    const layer = readLayer(entry, index, names, { base, home }, (problem) => said.push(problem));
    if (!layer && said.length > 0) said[said.length - 1]!.severity = "error";
    for (const problem of said) report({ ...problem, path: [index, ...problem.path] });
    if (!layer) return;
    names.add(layer.name);
    layers.push(layer);
  });
  return layers;
}

/** One entry of `layers`, or undefined (with a problem reported) when it is ignored; paths relative to the entry. */
function readLayer(
  entry: unknown,
  index: number,
  names: ReadonlySet<string>,
  paths: { base: string; home: string },
  report: ReportProblem,
): LayerDeclaration | undefined {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    return void report({ message: `layer ${index + 1} must be a mapping { name, path, priority }; ignored`, path: [] });
  }
  const layer = entry as Record<string, unknown>;
  for (const key of Object.keys(layer)) {
    if (!LAYER_KEYS.includes(key)) {
      const meant = closest(key, LAYER_KEYS);
      report({
        message: `unknown layer key "${key}" is ignored (known: ${LAYER_KEYS.join(", ")})`,
        path: [key],
        ...(meant ? { hint: `did you mean "${meant}"?` } : {}),
      });
    }
  }
  const { name, path, priority, git, url } = layer;
  if (typeof name !== "string" || name.trim() === "")
    return void report({ message: `layer ${index + 1} needs a "name" (a string); layer ignored`, path: ["name"] });
  if (git === undefined) {
    for (const key of GIT_ONLY_KEYS)
      if (key in layer)
        report({
          message: `layer "${name}": "${key}" applies only to a git layer (one with "git: <url>"); ignored`,
          path: [key],
        });
  }
  if (url === undefined) {
    for (const key of WELL_KNOWN_ONLY_KEYS)
      if (key in layer)
        report({ message: `layer "${name}": "${key}" applies only to a layer with "url"; ignored`, path: [key] });
  } else if (git !== undefined || path !== undefined)
    return void report({
      message: `layer "${name}" has "url" and "${git !== undefined ? "git" : "path"}": give one`,
      path: ["url"],
    });
  if (git === undefined && url === undefined && (typeof path !== "string" || path.trim() === "")) {
    return void report({
      message: `layer "${name}" needs a "path" (a folder), "git" (a repository URL) or "url" (a well-known index); layer ignored`,
      path: ["path"],
    });
  }
  if (typeof priority !== "number" || !Number.isFinite(priority)) {
    return void report({
      message: `layer "${name}" needs a numeric "priority" (higher wins); layer ignored`,
      path: ["priority"],
    });
  }
  if (names.has(name))
    return void report({
      message: `layer "${name}" is declared twice in this file; the second is ignored`,
      path: ["name"],
    });
  // Present at all (even null or empty): the layer is restricted. Fail closed.
  const access = "visibleTo" in layer ? { visibleTo: readVisibleTo(layer.visibleTo, name, report) } : {};
  const signed =
    git !== undefined || url !== undefined
      ? readSigners(layer, name, (p) => expandPath(p, paths.base, paths.home), report)
      : SIGNERS_KEY in layer
        ? void report({
            message: `layer "${name}": "signers" applies only to a git or url layer; ignored`,
            path: [SIGNERS_KEY],
          })
        : {};
  if (git !== undefined) {
    const source = signed && readGitSource(layer, name, report);
    return source && { name, path: "", priority, git: { ...source, ...signed }, ...access };
  }
  if (url !== undefined) {
    const source = signed && readWellKnownSource(layer, name, report);
    return source && { name, path: "", priority, wellKnown: { ...source, ...signed }, ...access };
  }
  return { name, path: expandPath(path as string, paths.base, paths.home), priority, ...access };
}

/**
 * The git keys of one layer. The URL is never echoed in a message: it may carry a token. Which
 * transports are allowed is decided where the URL is used (src/sources/git-url.ts).
 */
function readGitSource(layer: Record<string, unknown>, name: string, report: ReportProblem): GitSource | undefined {
  const { git, ref, path, refresh } = layer;
  if (typeof git !== "string" || git.trim() === "")
    return void report({
      message: `layer "${name}": "git" must be a repository URL (a string); layer ignored`,
      path: ["git"],
    });
  if (git.trim().startsWith("-") || /[\s\x00-\x1f\x7f]/.test(git.trim()))
    return void report({ message: `layer "${name}": "git" is not a repository URL; layer ignored`, path: ["git"] });
  const source: GitSource = { url: git.trim(), ref: "HEAD", path: "" };
  if (ref !== undefined) {
    const refText = typeof ref === "number" ? String(ref) : ref;
    if (typeof refText !== "string" || refText.trim() === "")
      return void report({
        message: `layer "${name}": "ref" must be a branch, tag or commit (a string); layer ignored`,
        path: ["ref"],
      });
    const problem = refProblem(refText.trim());
    if (problem) return void report({ message: `layer "${name}": "ref" ${problem}; layer ignored`, path: ["ref"] });
    source.ref = refText.trim();
  }
  if (path !== undefined) {
    if (typeof path !== "string")
      return void report({
        message: `layer "${name}": "path" must be a folder inside the repository (a string); layer ignored`,
        path: ["path"],
      });
    const checked = repoPathOrProblem(path.trim());
    if ("problem" in checked)
      return void report({ message: `layer "${name}": "path" ${checked.problem}; layer ignored`, path: ["path"] });
    source.path = checked.path;
  }
  if (refresh !== undefined && refresh !== false) {
    const ms = typeof refresh === "string" ? parseDuration(refresh) : undefined;
    if (ms === undefined)
      report({
        message: `layer "${name}": "refresh" must be a duration like 30m, 1h or 1d (or false); ignored`,
        path: ["refresh"],
      });
    else if (ms < MIN_REFRESH_MS)
      report({
        message: `layer "${name}": "refresh" must be at least 1m (a shared remote is not polled more often); ignored`,
        path: ["refresh"],
      });
    else source.refreshMs = ms;
  }
  return source;
}
