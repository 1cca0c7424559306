/**
 * Plain-data views of the registry, shared by every adapter that shows provenance (the CLI's
 * `show` and `list --json`, MCP resources, the public API), so they all say the same thing.
 */
import type { Skill, SkillFile, SkillFormat } from "../skill/skill.ts";
import { publishedSkillOf } from "./published-skills.ts";
import type { Candidate, CandidateStatus, LayerRef, Provenance, Registry, Resolution } from "./registry.ts";

export interface CandidateView {
  layer: string;
  priority: number;
  source: string;
  status: "effective" | "shadowed" | "conflicted";
  /** For shadowed: the winner's source; for conflicted: the rival sources. */
  shadowedBy?: string;
  conflictsWith?: string[];
}

export interface SkillView {
  id: string;
  title?: string;
  description: string;
  type: Skill["type"];
  tags: string[];
  arguments: { name: string; description?: string; required: boolean; enum?: string[] }[];
  prompt?: string;
  inputSchema?: Record<string, unknown>;
  version?: string;
  /** How the skill is written: a YAML file, or an Agent Skills folder. */
  format: SkillFormat;
  /** An Agent Skills folder's files, SKILL.md first, each with the URI the MCP skills extension serves it at. */
  files?: { path: string; size: number; sha256: string; uri?: string }[];
  /** An Agent Skills folder's `examples.yaml`: read by `skill-central test` only, never published. */
  examplesFile?: string;
  /** Hidden names in an Agent Skills folder left out of the skill (`.DS_Store`; a folder ends in `/`). */
  leftOut?: string[];
  /** A prompt skill as the MCP skills extension publishes it: its `SKILL.md`'s URI (a YAML skill's is synthesised)… */
  uri?: string;
  /** …and that file's digest (`sha256:<hex>`), which a host verifies the read against. */
  digest?: string;
  /** Not listed as a prompt (`user-invocable: false`). */
  hidden?: true;
  /** Never offered to a model (`disable-model-invocation: true`). */
  modelInvocable?: false;
  layer: string;
  priority: number;
  source: string;
}

export interface ResolutionView {
  id: string;
  /** False when a conflict withdraws the id. */
  served: boolean;
  chain: CandidateView[];
}

function statusView(status: CandidateStatus): Pick<CandidateView, "status" | "shadowedBy" | "conflictsWith"> {
  switch (status.kind) {
    case "effective":
      return { status: "effective" };
    case "shadowed":
      return { status: "shadowed", shadowedBy: status.by.source };
    case "conflicted":
      return { status: "conflicted", conflictsWith: status.with.map((c) => c.source) };
  }
}

export function candidateView({ candidate, status }: Provenance): CandidateView {
  return {
    layer: candidate.layer.name,
    priority: candidate.layer.priority,
    source: candidate.source,
    ...statusView(status),
  };
}

/** A folder skill's files with their sizes and digests (worked out now if not yet); none when they are refused. */
export function folderFilesOf(candidate: Pick<Candidate, "files">): readonly SkillFile[] {
  const read = candidate.files?.read();
  return read && "files" in read ? read.files : [];
}

/** The hidden names a folder skill leaves out (its folder is listed now if it was not yet). */
export function leftOutOf(candidate: Pick<Candidate, "files">): readonly string[] {
  return candidate.files?.walk().leftOut ?? [];
}

/**
 * A served skill as plain data. With `withTemplate`, its template too, read from wherever its
 * content lives (the CLI and the API show it; listings never need it).
 */

export function skillView(candidate: Candidate, withTemplate = false): SkillView {
  const { skill, layer, source, content } = candidate;
  let template: string | undefined;
  if (withTemplate) {
    try {
      template = content.read().template;
    } catch {
      // Content that can no longer be read is reported where it is used, not here.
    }
  }
  const published = publishedSkillOf(candidate);
  const leftOut = leftOutOf(candidate);
  const skillMd = published?.byPath.get("SKILL.md");
  const uriOf = new Map(published?.files.flatMap((f) => (f.record ? [[f.record.path, f.uri] as const] : [])));
  return {
    id: skill.id,
    ...(skill.title !== undefined && { title: skill.title }),
    description: skill.description,
    type: skill.type,
    tags: [...skill.tags],
    arguments: skill.arguments.map((a) => ({ ...a, ...(a.enum && { enum: [...a.enum] }) })),
    ...(template !== undefined && { prompt: template }),
    ...(skill.inputSchema !== undefined && { inputSchema: skill.inputSchema }),
    ...(skill.version !== undefined && { version: skill.version }),
    format: skill.format ?? "yaml",
    ...(candidate.files && {
      files: folderFilesOf(candidate).map(({ path, size, sha256 }) => ({
        path,
        size,
        sha256,
        ...(uriOf.has(path) && { uri: uriOf.get(path)! }),
      })),
    }),
    ...(skill.examplesFile && { examplesFile: skill.examplesFile.path }),
    ...(leftOut.length > 0 && { leftOut: [...leftOut] }),
    ...(published && skillMd && { uri: published.uri, digest: skillMd.digest }),
    ...(skill.hidden && { hidden: true as const }),
    ...(skill.modelInvocable === false && { modelInvocable: false as const }),
    layer: layer.name,
    priority: layer.priority,
    source,
  };
}

export function resolutionView(resolution: Resolution): ResolutionView {
  return { id: resolution.id, served: resolution.effective !== undefined, chain: resolution.chain.map(candidateView) };
}

/** Every id with its full chain, sorted by id. */
export function registryView(registry: Registry): ResolutionView[] {
  return registry.resolutions().map(resolutionView);
}

/** Where a remote layer's copy came from and who signed it, as `skills/list`, the board and the API show it. */
export interface OriginView {
  /** The git repository or the index URL (credentials redacted). */
  url: string;
  /** A git layer's commit. */
  commit?: string;
  signer?: { principal: string; fingerprint: string };
}

/** A candidate's layer origin, for a remote (git or url) layer; undefined for a folder. */
export function originView(layer: LayerRef): OriginView | undefined {
  if (!layer.provenance) return undefined;
  const { url, commit, signer } = layer.provenance;
  return { url, ...(commit !== undefined && { commit }), ...(signer && { signer: { ...signer } }) };
}
