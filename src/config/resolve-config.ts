/**
 * The user's and the project's configs found, read and merged into what a load serves: the layers
 * in order (a project's layer replaces the user's of the same name), the settings, the audit.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import type { Signer } from "../storage/allowed-signers.ts";
import { isDirectory } from "../storage/fs-state.ts";
import { BUILTIN_LAYER_NAME, BUILTIN_PRIORITY, builtinSkillsDir } from "./builtin-layer.ts";
import type { VisibleTo } from "./visible-to.ts";
import { isRemote, type LayerSource } from "./layer-source.ts";
import { mergeAuditSettings, type AuditSettings } from "./audit-settings.ts";
import { mergeChecksSettings, type ChecksSettings } from "./checks-settings.ts";
import { mergeCatalogSettings, type CatalogSettings } from "./catalog-settings.ts";
import { mergeElicitationSettings, type ElicitationSettings } from "./elicitation-settings.ts";
import { mergeEvalSettings, type EvalSettings } from "./eval-settings.ts";
import { projectConfigPath, readConfigFile, userConfigPath, type ConfigFile } from "./config-file.ts";
import type { ConfigOrigin } from "./config-origin.ts";
import { mergeFileSettings } from "./file-keys.ts";
import { APPROVAL_SCOPES, type ApprovalScope, type SourceList } from "./policy-settings.ts";
import type { StoreSetting } from "./store-settings.ts";
import { mergeHttpSettings, type HttpSettings } from "./http-settings.ts";
import { defaultUsageSettings, mergeUsageSettings, type UsageSettings } from "./usage-settings.ts";

/** Where a served remote layer's files came from, for people (`show`, `doctor`, the board, `skills/list`). */
export interface LayerProvenance {
  /** The repository URL (a git layer) or the index URL (a url layer), credentials redacted. */
  url: string;
  /** A git layer's commit; absent for a url layer. */
  commit?: string;
  /** The layer's folder inside the repository ("" for the root, and for a url layer). */
  path: string;
  /** Who signed the commit or index, when the layer has `signers` and sync verified it. */
  signer?: Signer;
}

export interface LayerSpec {
  name: string;
  /** The folder the layer's files are read from: a folder layer's own; a remote one's copy, set by src/sources/. */
  dir: string;
  priority: number;
  /** Refused by `policy.sources` (src/sources/source-policy.ts): nothing of it is read, fetched or refreshed. */
  outsidePolicy?: true;
  /** Where it was declared: a config file, or how it was implied. */
  origin: string;
  /** As declared; src/sources/ turns a git or well-known source into `dir` (a verified copy of a commit or index). */
  source: LayerSource;
  /** Set by src/sources/ when `dir` is a verified copy of a commit or an index. */
  provenance?: LayerProvenance;
  /** The layer contributes nothing, for this reason (already reported as a diagnostic). */
  unavailable?: string;
  /**
   * Set by src/sources/ on a project git or url layer whose lock entry matches the config but
   * whose copy is not on this machine: what it is locked at (the commit, or the index copy's
   * contentHash). The server fetches it in the background (src/sources/fetch-missing.ts).
   */
  missingLocked?: string;
  /** Who may see the layer over HTTP; absent: everyone. */
  visibleTo?: VisibleTo;
}

/** A layer whose source is known to be of one kind: what a git-only or index-only step takes. */
export type LayerFrom<S extends LayerSource> = LayerSpec & { source: S };

export interface ConfigOptions {
  /** Project root: where `skill-central.yaml` and `.skills/` are looked for. */
  cwd: string;
  /** Home folder for `~/.skill-central/config.yaml` and `~` in paths. Defaults to the user's. */
  home?: string;
  /** `false` forces the built-in layer off (CLI `--no-builtin`), whatever the configs say. */
  builtin?: boolean;
  /** Overrides the built-in skills folder (tests, embedders). */
  builtinDir?: string;
  /** The config of the previous load in this process: a config file that breaks keeps its last good version. */
  previousConfig?: ResolvedConfig;
}

export interface ResolvedConfig {
  /** In declaration order: built-in first, then user, then project. */
  layers: LayerSpec[];
  /** Config files that were found and read, user first. */
  files: string[];
  /** What each config file said, as last read successfully: a later broken read falls back to it. */
  parsed: ConfigFile[];
  builtin: boolean;
  pageSize?: number;
  /** How skills reach tool-only and capped clients: the project's keys over the user's, over the defaults (absent: the defaults). */
  catalog?: CatalogSettings;
  /** Asking for missing required arguments: the project's keys over the user's, over the defaults. */
  elicitation?: ElicitationSettings;
  /** `audit:` of the user's and project's configs, merged (absent: the defaults). */
  audit?: AuditSettings;
  /** `checks:` of the user's and project's configs: findings the checkers silence, each with its reason. */
  checks?: ChecksSettings;
  /** Where uses are recorded: the user's keys over the default store (a project's config may not set them). */
  usage?: UsageSettings;
  /** Opt-in skills (`enabled: false`) switched on: the ids the user's and the project's `enable` list. */
  enable?: readonly string[];
  /** `policy.sources` of each config that sets it, user first: a git or url layer must match every list. */
  sourceLists?: SourceList[];
  /** The state store (the user's `store:`, else the default file): where the admin log is kept. */
  stateStore?: StoreSetting;
  /** `policy.approvers`: the user's file, else the project's; the keys whose admin actions count. */
  approvers?: string;
  /** `policy.approval`, the strictest of the user's and the project's (tighten-only); absent: off. */
  approval?: ApprovalScope;
  /** `policy.twoPerson`: true when either config says so (tighten-only). */
  twoPerson?: boolean;
  /** `eval:` of the user's and project's configs, the project's key over the user's (eval-settings.ts). */
  eval?: EvalSettings;
  /** Other files resolution read (the lockfile, …): a change to one is a change to the config. */
  inputs?: string[];
}

export const FALLBACK_LAYER_DIR = ".skills";
const FALLBACK_LAYER_PRIORITY = 100;

/** A layer that is a folder of this machine, not declared in a config (the built-in one, `.skills/`). */
function folderLayer(name: string, dir: string, priority: number, origin: string): LayerSpec {
  return { name, dir, priority, origin, source: { kind: "path", path: dir } };
}

/** The layer of a project whose configs declare none: its `.skills/` folder. */
export function fallbackLayer(cwd: string): LayerSpec {
  const dir = join(cwd, FALLBACK_LAYER_DIR);
  return folderLayer("project", dir, FALLBACK_LAYER_PRIORITY, `${FALLBACK_LAYER_DIR}/ (no layers configured)`);
}

/** Project layers replace same-named user layers and take the project's place in the order. */
function mergeLayers(user: ConfigFile | undefined, project: ConfigFile | undefined): LayerSpec[] {
  const merged: LayerSpec[] = [];
  for (const config of [user, project]) {
    for (const layer of config?.layers ?? []) {
      const existing = merged.findIndex((l) => l.name === layer.name);
      if (existing >= 0) merged.splice(existing, 1);
      merged.push({
        name: layer.name,
        dir: isRemote(layer.source) ? "" : layer.source.path,
        priority: layer.priority,
        origin: config!.file,
        source: layer.source,
        ...(layer.visibleTo && { visibleTo: layer.visibleTo }),
      });
    }
  }
  return merged;
}

/**
 * `audit:` of both files: the project's may tighten the user's, never loosen it (each looser key
 * a warning at the project's file), and its pins count for its own layers only: those its config
 * declares, or its `.skills/` folder when no config declares any (audit-settings.ts says why).
 */
function mergedAudit(
  user: ConfigFile | undefined,
  project: ConfigFile | undefined,
  layers: readonly LayerSpec[],
  report: (d: Diagnostic) => void,
): AuditSettings {
  const own = (file: string) =>
    layers.filter((l) => l.origin === file || l.origin.startsWith(FALLBACK_LAYER_DIR)).map((l) => l.name);
  return mergeAuditSettings(
    user && { file: user.file, audit: user.audit },
    project && { file: project.file, audit: project.audit, projectLayers: own(project.file) },
    ({ file, message, hint }) => report({ severity: "warning", code: "config", file, message, hint }),
  );
}

/** Finds, reads and merges the user and project configs into the list of layers to load. */
export async function resolveConfig(options: ConfigOptions, report: (d: Diagnostic) => void): Promise<ResolvedConfig> {
  const home = options.home ?? homedir();
  const userFile = userConfigPath(home);
  const projectFile = projectConfigPath(options.cwd);
  const lastGood = (read: ConfigFile, report: (d: Diagnostic) => void): ConfigFile => {
    if (read.broken === undefined) return read;
    const before = options.previousConfig?.parsed.find((c) => c.file === read.file);
    const reason = read.broken;
    report({
      severity: before ? "warning" : "error",
      code: "config-invalid",
      file: read.file,
      ...(read.brokenAt && { position: read.brokenAt }),
      message: before
        ? `config not reloaded, still using its last good version: ${reason}`
        : `config ignored: ${reason}`,
      hint: "fix the file; its layers and settings apply again once it reads",
    });
    return before ?? { file: read.file };
  };
  // Read side by side, reported in one order (user, then project) whichever finishes first.
  const read = async (file: string | undefined, origin: ConfigOrigin) => {
    const found: Diagnostic[] = [];
    const config = file
      ? lastGood(await readConfigFile(file, home, (d) => found.push(d), origin), (d) => found.push(d))
      : undefined;
    return { config, found };
  };
  const [userRead, projectRead] = await Promise.all([read(userFile, "user"), read(projectFile, "project")]);
  for (const d of [...userRead.found, ...projectRead.found]) report(d);
  const user = userRead.config;
  const project = projectRead.config;

  const declared = mergeLayers(user, project);
  const layers: LayerSpec[] = [];
  const own = mergeFileSettings(user, project);
  const builtin = options.builtin === false ? false : own.builtin;
  if (builtin)
    layers.push(
      folderLayer(BUILTIN_LAYER_NAME, options.builtinDir ?? builtinSkillsDir(), BUILTIN_PRIORITY, "built-in"),
    );
  if (user?.layers?.length || project?.layers?.length) for (const layer of declared) layers.push(layer);
  else {
    const fallback = fallbackLayer(options.cwd);
    if (isDirectory(fallback.dir)) layers.push(fallback);
  }
  const { pageSize } = own;
  const catalog = mergeCatalogSettings(user?.catalog, project?.catalog);
  if (catalog.mode === "off" && catalog.toolSkills === "catalog") {
    const file = [project, user].find((c) => c?.catalog?.toolSkills === "catalog")?.file;
    report({
      severity: "warning",
      code: "config",
      ...(file !== undefined && { file }),
      message: '"toolSkills: catalog" needs the catalog tools, which "catalog: off" turns off; tool skills stay tools',
      hint: 'remove one of the two, or set "catalog: auto"',
    });
  }
  // Each config's list kept whole (policy-settings.ts): a layer must match every one, never their union.
  const sourceLists: SourceList[] = [user, project].flatMap((c) =>
    c?.policy?.sources !== undefined ? [{ file: c.file, patterns: c.policy.sources }] : [],
  );
  return {
    layers,
    files: [userFile, projectFile].filter((f): f is string => f !== undefined),
    parsed: [user, project].filter((c): c is ConfigFile => c !== undefined && c.broken === undefined),
    builtin,
    ...(pageSize !== undefined && { pageSize }),
    catalog,
    ...mergedBlocks(user, project),
    audit: mergedAudit(user, project, layers, report),
    usage: mergeUsageSettings(defaultUsageSettings(home), user?.usage, project?.usage, user?.store),
    enable: own.enable,
    ...(sourceLists.length > 0 && { sourceLists }),
    ...governance(user, project, home),
  };
}

/** The blocks whose project keys simply win over the user's, key by key. */
function mergedBlocks(
  user: ConfigFile | undefined,
  project: ConfigFile | undefined,
): Pick<ResolvedConfig, "elicitation" | "checks" | "eval"> {
  return {
    elicitation: mergeElicitationSettings(user?.elicitation, project?.elicitation),
    checks: mergeChecksSettings(user?.checks, project?.checks),
    eval: mergeEvalSettings(user?.eval, project?.eval),
  };
}

/** Where the admin log is (the user's `store:`, else the default file) and whose keys count (the user's approvers first). */
function governance(
  user: ConfigFile | undefined,
  project: ConfigFile | undefined,
  home: string,
): Pick<ResolvedConfig, "stateStore" | "approvers" | "approval" | "twoPerson"> {
  // A project's approvers never stand in for the user's where the user requires approvals:
  // a cloned repository naming its own keys could approve its own skills.
  const userRequires = (user?.policy?.approval ?? "off") !== "off";
  const approvers = user?.policy?.approvers ?? (userRequires ? undefined : project?.policy?.approvers);
  // Tighten-only: the strictest scope either config asks for; a project can add, never remove.
  const approval = [user?.policy?.approval, project?.policy?.approval].reduce<ApprovalScope>(
    (most, scope) => (APPROVAL_SCOPES.indexOf(scope ?? "off") > APPROVAL_SCOPES.indexOf(most) ? scope! : most),
    "off",
  );
  const twoPerson = user?.policy?.twoPerson === true || project?.policy?.twoPerson === true;
  return {
    stateStore: user?.store ?? { store: defaultUsageSettings(home).store },
    ...(approvers !== undefined && { approvers }),
    ...(approval !== "off" && { approval }),
    ...(twoPerson && { twoPerson }),
  };
}

/**
 * The `http:` settings of the user and project configs (the project's over the user's, key by
 * key), read once when the HTTP server starts; `problems` are settings in effect that cannot be
 * used. Other findings in the files are left to the skills' load, which reports them once.
 */
export async function resolveHttpSettings(options: {
  cwd: string;
  home?: string;
}): Promise<{ settings: HttpSettings; problems: string[] }> {
  const home = options.home ?? homedir();
  const files = [userConfigPath(home), projectConfigPath(options.cwd)];
  const read = await Promise.all(
    files.map((file, i) => (file ? readConfigFile(file, home, () => {}, i === 0 ? "user" : "project") : undefined)),
  );
  return mergeHttpSettings(...read.map((config) => config?.http));
}
