/**
 * The `layers:` of a config file: one schema for a layer entry (`LayerEntry`), each entry read with
 * readBlock, then the rules a schema cannot say, as code on an entry that already has its type:
 * which keys go with which kind of layer (a folder `path`, a repository `git`, a well-known index
 * `url`; each read into one LayerSource, layer-source.ts), a ref's syntax, a folder inside a
 * repository, refresh durations, the URL policy (config-url.ts), one layer per name. A layer a
 * mistake drops is an error, not a warning: `validate` must fail on it, and a layer with a bad
 * `signers` is never served unverified.
 *
 * A layer's `visibleTo` fails closed: present at all, it restricts the layer, whatever is wrong
 * with it. A malformed part grants nobody (dropping a part of an allow-list only narrows it), and
 * one that allows nobody leaves the layer to stdio (the local user) alone, never to everyone.
 *
 * Git and index URLs are never echoed in a message: they may carry credentials.
 */
import { ENV_NAME_PATTERN, SKILL_NAME_PATTERN } from "./config-names.ts";
import { under, type ReportProblem } from "./config-problem.ts";
import { NON_BLANK, readBlock, type BlockOf } from "./config-schema.ts";
import { parseWebUrl } from "./config-url.ts";
import type { GitSource, LayerSource, WellKnownSource } from "./layer-source.ts";
import type { VisibleTo } from "./visible-to.ts";

/** One layer of a config file, resolved: paths absolute, sources checked. */
export interface LayerDeclaration {
  name: string;
  priority: number;
  source: LayerSource;
  /** Who may see the layer over HTTP (docs/layer-access.md); absent: everyone. */
  visibleTo?: VisibleTo;
}

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

const VISIBLE_TO_HINT = "e.g. visibleTo: { claims: { groups: [security, sre] }, labels: [alice] }";

/** Who a part of `visibleTo` grants: one string, or a list of them; a bad entry grants nobody. */
const GrantList = {
  anyOf: [
    { type: "string", minLength: 1 },
    {
      type: "array",
      items: {
        type: "string",
        minLength: 1,
        errorMessage: "must be a non-empty string",
        consequence: "it grants nobody",
      },
    },
  ],
  errorMessage: "must be a list of strings",
  consequence: "it grants nobody",
  hint: VISIBLE_TO_HINT,
} as const;

/** A layer's `visibleTo` (docs/layer-access.md): claim name → accepted values, and static-token labels. */
const VisibleToBlock = {
  type: "object",
  additionalProperties: false,
  properties: {
    claims: {
      type: "object",
      additionalProperties: GrantList,
      errorMessage: "must be a mapping of claim name to values",
      consequence: "it grants nobody",
      hint: VISIBLE_TO_HINT,
    },
    labels: GrantList,
  },
  errorMessage: "must be a mapping with claims and/or labels",
  consequence: "it grants nobody",
  hint: VISIBLE_TO_HINT,
} as const;

/** A git URL: no leading `-` (git would read an option), no whitespace or control characters inside. */
const GIT_URL_PATTERN = /^\s*[^\s\x00-\x1f\x7f-][^\s\x00-\x1f\x7f]*\s*$/;

const DURATION_RULE = "must be a duration like 30m, 1h or 1d (or false)";
const LAYER_HINT = "e.g. `- { name: team, path: ./skills, priority: 50 }`";

/** One entry of `layers:`; which keys go with which kind of layer is checked after (readLayer). */
export const LayerEntry = {
  $id: "layer",
  type: "object",
  additionalProperties: false,
  required: ["name", "priority"],
  noun: "layer",
  dropSeverity: "error",
  properties: {
    name: { ...NON_BLANK, errorMessage: "must be a name (a string)" },
    path: {
      type: "string",
      dropsMapping: true,
      errorMessage: "must be a folder (a string; for a git layer, one inside the repository)",
    },
    priority: { type: "number", errorMessage: "must be a number (higher wins)" },
    git: {
      type: "string",
      pattern: GIT_URL_PATTERN.source,
      dropsMapping: true,
      errorMessage: "must be a repository URL",
    },
    ref: {
      type: ["string", "number"],
      pattern: "\\S",
      dropsMapping: true,
      errorMessage: "must be a branch, tag or commit (a string)",
    },
    refresh: { anyOf: [{ const: false }, { type: "string" }], errorMessage: DURATION_RULE },
    visibleTo: VisibleToBlock,
    url: {
      ...NON_BLANK,
      dropsMapping: true,
      errorMessage: "must be a well-known index URL (a string)",
    },
    signers: {
      ...NON_BLANK,
      dropsMapping: true,
      errorMessage: "must be the path of an OpenSSH allowed-signers file",
      hint: "a layer with signers is never served unverified; e.g. signers: ./allowed_signers",
    },
    revoked: {
      ...NON_BLANK,
      dropsMapping: true,
      errorMessage: "must be the path of a file of revoked public keys (one per line)",
      hint: "keys listed there sign nothing for this layer; e.g. revoked: ./revoked_keys",
    },
    skills: {
      type: "array",
      items: { type: "string", pattern: SKILL_NAME_PATTERN.source },
      dropsMapping: true,
      errorMessage: "must be a list of skill names (lowercase, digits, hyphens)",
    },
    tokenEnv: {
      type: "string",
      pattern: ENV_NAME_PATTERN.source,
      dropsMapping: true,
      errorMessage: "must name an environment variable (letters, digits, _)",
    },
  },
  errorMessage: "must be a mapping { name, path, priority }",
  hint: LAYER_HINT,
  examples: [
    { name: "team", path: "./skills", priority: 50 },
    { name: "vendor", priority: 30, url: "https://example.com/", skills: ["pdf"], visibleTo: { labels: "alice" } },
  ],
} as const;

type LayerBlock = BlockOf<typeof LayerEntry>;
type VisibleToDeclared = NonNullable<LayerBlock["visibleTo"]>;

/** Keys that only a git layer (`git: <url>`) takes. */
const GIT_ONLY_KEYS = ["ref", "refresh"] as const;
/** Keys that only a layer with `url` takes. */
const WELL_KNOWN_ONLY_KEYS = ["skills", "tokenEnv"] as const;

/** A remote layer's trust files, resolved (withoutStrayKeys leaves them out of a folder layer). */
type Signed = Pick<GitSource, "signers" | "revoked">;

/** A layer's problems after readBlock: each names the layer and sits at one of its keys. */
interface LayerReport {
  who: string;
  report: ReportProblem;
}

/** `key`'s value is wrong in a way that loses the layer. */
function dropLayer({ who, report }: LayerReport, key: string, problem: string): undefined {
  report({ message: `${who}: "${key}" ${problem}; layer ignored`, path: [key], severity: "error" });
  return undefined;
}

/** `key` is dropped, the layer kept. */
function dropKey({ who, report }: LayerReport, key: string, problem: string): void {
  report({ message: `${who}: "${key}" ${problem}; ignored`, path: [key] });
}

/**
 * The layers of one file (`layers:`'s value); `resolvePath` turns a written path absolute as the
 * rest of the file's paths are (relative to the file, `~` expanded).
 */
export function readLayers(
  value: unknown,
  resolvePath: (path: string) => string,
  report: ReportProblem,
): LayerDeclaration[] | undefined {
  if (value === null) return [];
  if (!Array.isArray(value)) {
    report({
      message: `"layers" must be a list of { name, path, priority }; ignored, so no layer of this file is loaded`,
      path: [],
      hint: "e.g. `- { name: team, path: ./skills, priority: 50 }` on the next line",
      severity: "error",
    });
    return undefined;
  }
  const layers: LayerDeclaration[] = [];
  const names = new Set<string>();
  value.forEach((entry, index) => {
    const layer = readLayer(entry, index, names, resolvePath, under([index], report));
    if (layer === undefined) return;
    names.add(layer.name);
    layers.push(layer);
  });
  return layers;
}

/** One entry of `layers`, or undefined (each problem reported) when it is ignored; paths relative to the entry. */
function readLayer(
  entry: unknown,
  index: number,
  names: ReadonlySet<string>,
  resolvePath: (path: string) => string,
  report: ReportProblem,
): LayerDeclaration | undefined {
  const named = (entry as { name?: unknown } | null)?.name;
  const within = typeof named === "string" && named.trim() !== "" ? `layer "${named}"` : `layer ${index + 1}`;
  const block = readBlock(LayerEntry, withoutStrayKeys(entry, { who: within, report }), report, { within });
  if (block === undefined) return undefined;
  const { name, priority, git, url } = block;
  const at: LayerReport = { who: `layer "${name}"`, report };
  if (url !== undefined && (git !== undefined || block.path !== undefined)) {
    report({
      message: `${at.who} has "url" and "${git !== undefined ? "git" : "path"}": give one`,
      path: ["url"],
      severity: "error",
    });
    return undefined;
  }
  if (git === undefined && url === undefined && (block.path === undefined || block.path.trim() === "")) {
    report({
      message: `${at.who} needs a "path" (a folder), "git" (a repository URL) or "url" (a well-known index); layer ignored`,
      path: ["path"],
      severity: "error",
    });
    return undefined;
  }
  if (names.has(name)) {
    report({
      message: `${at.who} is declared twice in this file; the second is ignored`,
      path: ["name"],
      severity: "error",
    });
    return undefined;
  }
  // Present at all (even null, or malformed and so dropped above): the layer is restricted. Fail closed.
  const access = Object.hasOwn(entry as object, "visibleTo") ? { visibleTo: visibleToOf(block.visibleTo, at) } : {};
  const signed: Signed = {
    ...(block.signers !== undefined && { signers: resolvePath(block.signers.trim()) }),
    ...(block.revoked !== undefined && { revoked: resolvePath(block.revoked.trim()) }),
  };
  const source: LayerSource | undefined =
    git !== undefined
      ? gitSourceOf(block, git, signed, at)
      : url !== undefined
        ? wellKnownSourceOf(block, url, signed, at)
        : { kind: "path", path: resolvePath(block.path!) };
  return source && { name, priority, source, ...access };
}

/**
 * The entry without the keys its kind of layer does not take (each one a warning; the layer is
 * kept): left out before the schema is checked, so a wrong value under a key that does not apply
 * cannot drop the layer.
 */
function withoutStrayKeys(entry: unknown, at: LayerReport): unknown {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return entry;
  const layer = entry as Record<string, unknown>;
  const stray: [string, string][] = [];
  if (layer.git === undefined)
    for (const key of GIT_ONLY_KEYS) stray.push([key, 'applies only to a git layer (one with "git: <url>")']);
  if (layer.url === undefined)
    for (const key of WELL_KNOWN_ONLY_KEYS) stray.push([key, 'applies only to a layer with "url"']);
  if (layer.git === undefined && layer.url === undefined) {
    stray.push(["signers", "applies only to a git or url layer"]);
    stray.push(["revoked", "applies only to a git or url layer with signers"]);
  } else if (layer.signers === undefined)
    stray.push(["revoked", 'applies only with "signers" (the keys it revokes are signers\' keys)']);
  const present = stray.filter(([key]) => Object.hasOwn(layer, key));
  if (present.length === 0) return entry;
  const kept = { ...layer };
  for (const [key, why] of present) {
    delete kept[key];
    dropKey(at, key, why);
  }
  return kept;
}

/** The git keys of a layer. Which transports are allowed is decided where the URL is used (src/sources/git-url.ts). */
function gitSourceOf(block: LayerBlock, git: string, signed: Signed, at: LayerReport): GitSource | undefined {
  const source: GitSource = { kind: "git", url: git.trim(), ref: "HEAD", path: "", ...signed };
  if (block.ref !== undefined) {
    const ref = String(block.ref).trim();
    const problem = refProblem(ref);
    if (problem) return dropLayer(at, "ref", problem);
    source.ref = ref;
  }
  if (block.path !== undefined) {
    const checked = repoPathOrProblem(block.path.trim());
    if ("problem" in checked) return dropLayer(at, "path", checked.problem);
    source.path = checked.path;
  }
  if (typeof block.refresh === "string") {
    const ms = parseDuration(block.refresh);
    if (ms === undefined) dropKey(at, "refresh", DURATION_RULE);
    else if (ms < MIN_REFRESH_MS)
      dropKey(at, "refresh", "must be at least 1m (a shared remote is not polled more often)");
    else source.refreshMs = ms;
  }
  return source;
}

/** The index's URL for a configured `url`: a folder gets `index.json`. */
function indexUrlOf(parsed: URL): string {
  if (!parsed.pathname.endsWith(".json") && !parsed.pathname.endsWith("/")) parsed.pathname += "/";
  if (parsed.pathname.endsWith("/")) parsed.pathname += "index.json";
  return parsed.href;
}

/**
 * The well-known keys of a layer (docs/well-known.md): `url` is the index's folder (or the
 * `index.json` itself, or a versioned `v1.2.0/` snapshot); `skills` takes only those; `tokenEnv`
 * names the environment variable holding a bearer token.
 */
function wellKnownSourceOf(
  block: LayerBlock,
  url: string,
  signed: Signed,
  at: LayerReport,
): WellKnownSource | undefined {
  const parsed = parseWebUrl(url.trim());
  if (parsed === "scheme")
    return dropLayer(at, "url", "must be an http:// or https:// URL (other schemes are refused)");
  if (parsed === "invalid") return dropLayer(at, "url", "is not a valid URL");
  return {
    kind: "well-known",
    url: indexUrlOf(parsed),
    ...(block.skills !== undefined && { skills: [...new Set(block.skills)].sort() }),
    ...(block.tokenEnv !== undefined && { tokenEnv: block.tokenEnv }),
    ...signed,
  };
}

/** A `visibleTo` as the registry reads it: each grant a list; one that allows nobody is said so. */
function visibleToOf(declared: VisibleToDeclared | undefined, { who, report }: LayerReport): VisibleTo {
  const list = (grant: string | readonly string[]) => (typeof grant === "string" ? [grant] : [...grant]);
  const claims: Record<string, readonly string[]> = {};
  for (const [claim, grant] of Object.entries(declared?.claims ?? {})) {
    const values = list(grant);
    if (values.length > 0) claims[claim] = values;
  }
  const labels = declared?.labels === undefined ? [] : list(declared.labels);
  if (labels.length === 0 && Object.keys(claims).length === 0)
    report({
      message: `${who}: "visibleTo" allows nobody, so no HTTP caller sees this layer (stdio still does)`,
      path: ["visibleTo"],
      hint: VISIBLE_TO_HINT,
    });
  return { claims, labels };
}
