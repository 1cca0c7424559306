/**
 * Where a layer's files come from, as one tagged union on `kind`: a folder of this machine
 * (`path`), a repository (`git`), or an Agent Skills well-known index (`well-known`, declared with
 * `url:`). A layer has exactly one, so a reader switches on `kind` (its declared return type makes
 * the compiler name every reader a new kind must reach) instead of asking "neither git nor
 * well-known", which would take any new kind for a folder. This is the in-memory shape only: the
 * config file's keys are read into it by read-layers.ts.
 */

/** A layer whose files are a folder of this machine. */
export interface PathSource {
  kind: "path";
  /** Absolute: resolved against the config file's folder, `~` expanded. */
  path: string;
}

/**
 * Where a git layer's files come from, as declared. `url` is exactly what the config says and may
 * carry credentials: never print it (src/sources/git-url.ts redacts).
 */
export interface GitSource {
  kind: "git";
  url: string;
  /** A branch, tag or commit; `HEAD` (the remote's default branch) when not given. */
  ref: string;
  /** A folder inside the repository, `/`-separated, no leading `./` or trailing `/`; "" is the root. */
  path: string;
  /** Fetch in the background this often (milliseconds), for a layer without a lock entry. */
  refreshMs?: number;
  /** The allowed-signers file (absolute) whose keys must have signed the commit (docs/provenance.md). */
  signers?: string;
  /** Public keys (absolute path of the file) whose signatures are refused though `signers` lists them. */
  revoked?: string;
}

/** A layer whose skills come from an Agent Skills well-known index (docs/well-known.md). */
export interface WellKnownSource {
  kind: "well-known";
  /** The index's URL as configured, normalised to end in `index.json`. */
  url: string;
  /** Only these skills (absent: every skill the index lists). */
  skills?: readonly string[];
  /** The environment variable holding a bearer token sent with every request. */
  tokenEnv?: string;
  /** The allowed-signers file (absolute) whose keys must have signed `index.json` (docs/provenance.md). */
  signers?: string;
  /** Public keys (absolute path of the file) whose signatures are refused though `signers` lists them. */
  revoked?: string;
}

export type LayerSource = PathSource | GitSource | WellKnownSource;

/** A source fetched into a verified copy by src/sources/ (its files are not a folder of this machine). */
export type RemoteSource = GitSource | WellKnownSource;

/** Whether the layer's files are a verified copy of something fetched (read-only; locked; signed). */
export function isRemote(source: LayerSource): source is RemoteSource {
  switch (source.kind) {
    case "path":
      return false;
    case "git":
    case "well-known":
      return true;
  }
}

/** The config key that declares a source of this kind: what a finding about the layer points at and calls it. */
export function declaringKey(source: LayerSource): "path" | "git" | "url" {
  switch (source.kind) {
    case "path":
      return "path";
    case "git":
      return "git";
    case "well-known":
      return "url";
  }
}

type SourceOf<K extends LayerSource["kind"]> = Extract<LayerSource, { kind: K }>;

/** The layers whose source is of `kind`, typed so: a git-only step reads `source.ref` without asserting. */
export function layersFrom<L extends { source: LayerSource }, K extends LayerSource["kind"]>(
  layers: readonly L[],
  kind: K,
): (L & { source: SourceOf<K> })[] {
  return layers.filter((l): l is L & { source: SourceOf<K> } => l.source.kind === kind);
}
