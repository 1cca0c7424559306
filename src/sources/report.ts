/** What `doctor` and `show` say of git layers: each one's state from the lockfile and the cache, its problems, a file's origin; nothing fetched. */
import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { projectConfigPath } from "../config/config-file.ts";
import { layersFrom } from "../config/layer-source.ts";
import type { LayerSpec } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { CacheEntry } from "./cache-entry.ts";
import { canonicalUrl, classifyGitUrl, redactUrl } from "./git-url.ts";
import { lockfilePath, readLockfile, sameSource } from "./lockfile.ts";
import { verifyCopy } from "./verify-copy.ts";
import { isLockable } from "./resolve-layers.ts";

/** What `doctor` says about one git layer. */
export interface GitLayerStatus {
  name: string;
  /** The config file that declares it. */
  origin: string;
  /** Redacted. */
  url: string;
  ref: string;
  path: string;
  /** Pinned by the project's lockfile (a project layer with a matching entry). */
  locked: boolean;
  /** The commit the layer serves (or would, once its copy is there). */
  commit?: string;
  copy: "verified" | "missing" | "mismatch" | "not-synced" | "lock-outdated" | "bad-url" | "refused";
  /** When the remote was last reached (ISO 8601), and how long ago, for people. */
  lastFetch?: string;
  lastFetchAge: string;
  /** The last fetch's failure, when it came after the last success. */
  lastError?: string;
  /** The remote no longer has the served commit (history rewritten). */
  orphaned: boolean;
  /** `refresh:` as configured; ignored while the lock pins the layer. */
  refreshMs?: number;
}

export function age(ms: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  const [value, unit] =
    seconds < 60
      ? [seconds, "second"]
      : seconds < 3600
        ? [Math.floor(seconds / 60), "minute"]
        : seconds < 86_400
          ? [Math.floor(seconds / 3600), "hour"]
          : [Math.floor(seconds / 86_400), "day"];
  return seconds < 5 ? "just now" : `${value} ${unit}${value === 1 ? "" : "s"} ago`;
}

/** Each git layer's state, from the lockfile and the cache; nothing is fetched. */
export async function gitLayerStatuses(
  layers: readonly LayerSpec[],
  where: { cwd: string; home?: string },
): Promise<GitLayerStatus[]> {
  const gitLayers = layersFrom(layers, "git");
  if (gitLayers.length === 0) return [];
  const home = where.home ?? homedir();
  const projectFile = projectConfigPath(where.cwd);
  const lock = projectFile ? await readLockfile(lockfilePath(projectFile)) : undefined;
  return Promise.all(
    gitLayers.map(async (spec): Promise<GitLayerStatus> => {
      const { source } = spec;
      const base = {
        name: spec.name,
        origin: spec.origin,
        url: redactUrl(source.url),
        ref: source.ref,
        path: source.path,
        locked: false,
        orphaned: false,
        lastFetchAge: "never",
        ...(source.refreshMs !== undefined && { refreshMs: source.refreshMs }),
      };
      // Outside `policy.sources`: its cache is not looked at (source-policy.ts).
      if (spec.outsidePolicy) return { ...base, copy: "refused" };
      if ("problem" in classifyGitUrl(source.url)) return { ...base, copy: "bad-url" };
      const entry = new CacheEntry(source.url, home);
      const record = await entry.fetchRecord();
      const fetched = {
        ...(record.lastSuccess !== undefined && {
          lastFetch: new Date(record.lastSuccess).toISOString(),
          lastFetchAge: age(record.lastSuccess),
        }),
        ...(record.lastError !== undefined &&
          (record.lastAttempt ?? 0) > (record.lastSuccess ?? 0) && { lastError: record.lastError }),
      };
      let target: { commit: string; contentHash: string } | undefined;
      let locked = false;
      if (isLockable(spec, projectFile) && lock?.entries.has(spec.name)) {
        const entryOfLock = lock.entries.get(spec.name)!;
        if (!sameSource(entryOfLock, { url: canonicalUrl(source.url), ref: source.ref, path: source.path }))
          return { ...base, ...fetched, copy: "lock-outdated" };
        target = entryOfLock;
        locked = true;
      } else if (!isLockable(spec, projectFile) || source.refreshMs !== undefined) {
        target = await entry.current(source.ref, source.path);
      }
      if (!target) return { ...base, ...fetched, copy: "not-synced" };
      const copy = await verifyCopy(
        entry.copyDir(target.commit, source.path),
        entry.sealFile(target.commit, source.path),
        target.contentHash,
      );
      return {
        ...base,
        ...fetched,
        locked,
        commit: target.commit,
        copy: copy.state === "ok" ? "verified" : copy.state,
        orphaned: record.orphaned?.[target.commit] !== undefined,
      };
    }),
  );
}

const COPY_TEXT: Record<GitLayerStatus["copy"], string> = {
  verified: "verified",
  missing: "missing (run skill-central sync)",
  mismatch: "DAMAGED, not served (run skill-central sync)",
  "not-synced": "not synced (run skill-central sync)",
  "lock-outdated": "lock out of date (run skill-central sync)",
  "bad-url": "unsupported URL",
  refused: "refused (outside policy.sources)",
};

/** Rows for a table: name, commit, copy state, last fetch, source. */
export function gitLayerRows(statuses: readonly GitLayerStatus[]): string[][] {
  return [
    ["NAME", "COMMIT", "COPY", "LAST FETCH", "SOURCE"],
    ...statuses.map((s) => [
      s.name,
      s.commit ? s.commit.slice(0, 12) : "-",
      COPY_TEXT[s.copy] + (s.orphaned ? ", orphaned" : ""),
      s.lastFetchAge,
      `${s.url}${s.ref === "HEAD" ? "" : ` ${s.ref}`}${s.path ? `, ${s.path}/` : ""}${s.locked ? " (locked)" : s.refreshMs !== undefined ? " (follows its ref)" : ""}`,
    ]),
  ];
}

/** What `doctor` reports beyond the loader's own findings: orphaned commits, failed fetches, plain http. */
export function gitLayerProblems(statuses: readonly GitLayerStatus[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const s of statuses) {
    const at = { file: s.origin };
    if (s.orphaned) {
      problems.push({
        severity: "warning",
        code: "git-orphaned",
        ...at,
        message: `git layer "${s.name}": commit ${s.commit!.slice(0, 12)} is no longer on the remote (its history was rewritten); this machine serves its cached copy, but a new machine cannot fetch it`,
        hint: `\`skill-central sync --update ${s.name}\` locks the ref's current commit`,
      });
    }
    if (s.lastError)
      problems.push({
        severity: "warning",
        code: "git-fetch-failed",
        ...at,
        message: `git layer "${s.name}": the last fetch failed: ${s.lastError}`,
      });
    if (s.locked && s.refreshMs !== undefined) {
      problems.push({
        severity: "note",
        code: "git-refresh-locked",
        ...at,
        message: `git layer "${s.name}": "refresh" is ignored while skill-central.lock pins the layer`,
        hint: `\`skill-central sync --update ${s.name}\` moves it`,
      });
    }
    const host = /^http:\/\/(?:[^@/]*@)?([^/:]+)/i.exec(s.url)?.[1];
    if (host && !["localhost", "127.0.0.1", "[::1]"].includes(host)) {
      problems.push({
        severity: "warning",
        code: "git-insecure-url",
        ...at,
        message: `git layer "${s.name}" is fetched over plain http: anyone on the network path can change what is fetched`,
        hint: "use an https:// or ssh URL",
      });
    }
  }
  return problems;
}

/** Where a served skill file of a git layer comes from: repository, commit and path in it. */
export function gitOrigin(
  layers: readonly LayerSpec[],
  layerName: string,
  source: string,
  cwd: string,
): { url: string; commit: string; path: string } | undefined {
  const layer = layers.find((l) => l.name === layerName);
  const origin = layer?.provenance;
  if (!layer || origin?.commit === undefined) return undefined;
  const file = isAbsolute(source) ? source : resolve(cwd, source);
  const inLayer = relative(layer.dir, file);
  if (inLayer.startsWith("..") || isAbsolute(inLayer)) return undefined;
  const rel = inLayer.split(sep).join("/");
  return {
    url: origin.url,
    commit: origin.commit,
    path: origin.path ? `${origin.path}/${rel}` : rel,
  };
}
