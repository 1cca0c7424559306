/** The registry: every skill the layers define, resolved across layers with provenance, built once per load and then only read. */
import type { LayerProvenance } from "../config/resolve-config.ts";
import type { VisibleTo } from "../config/visible-to.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { ContentSource, FolderFiles, Skill, SkillType } from "../skill/skill.ts";

/** A layer as the registry sees it: a name, a priority and its place in declaration order. */
export interface LayerRef {
  name: string;
  priority: number;
  /** Declaration order (built-in first, then user, then project); later wins ties. */
  order: number;
  /** Who may see the layer over HTTP (visibility.ts); absent: everyone. */
  visibleTo?: VisibleTo;
  /** A remote layer's source: URL, commit and signer. */
  provenance?: LayerProvenance;
}

export interface Candidate {
  skill: Skill;
  layer: LayerRef;
  /** Where the skill came from: an absolute path (an opaque id to the registry). */
  path: string;
  /** The same, as people read it (relative to the project, `builtin:…`): used in messages. */
  source: string;
  /** The template and examples, read on first use. */
  content: ContentSource;
  /** An Agent Skills folder's files with their sizes and digests, worked out on first use. */
  files?: FolderFiles;
  /** The signed approval it is served under (`policy.approval`, docs/governance.md). */
  approval?: ApprovalView;
}

/** An approval as `_meta["dev.skill-central/approval"]` carries it. */
export interface ApprovalView {
  principal: string;
  fingerprint: string;
  /** ISO 8601. */
  at: string;
  digest: string;
}

export type CandidateStatus =
  | { kind: "effective" }
  | { kind: "shadowed"; by: Candidate }
  | { kind: "conflicted"; with: Candidate[] };

export interface Provenance {
  candidate: Candidate;
  status: CandidateStatus;
}

export interface Resolution {
  id: string;
  /** The served candidate; absent when a conflict withdraws the id. */
  effective?: Candidate;
  /** Every candidate, winner first, then by descending priority and declaration order. */
  chain: Provenance[];
}

/**
 * An immutable view of every skill the layers define: built once per load, then only read.
 * A reload builds a new one and swaps the reference, so a request sees one set, never a mix.
 */
export interface Registry {
  readonly layers: readonly LayerRef[];
  /** Effective skills, by id. */
  get(id: string): Candidate | undefined;
  /** Every id that has at least one candidate, including withdrawn ones. */
  resolution(id: string): Resolution | undefined;
  resolutions(): readonly Resolution[];
  /** Every effective skill, prompts and tools, sorted by id. */
  served(): readonly Candidate[];
  /** Effective skills of a type, sorted by id. */
  ofType(type: SkillType): readonly Candidate[];
  /** Effective prompt skills carrying a (normalised) tag. */
  promptsTagged(tag: string): readonly Candidate[];
  /** Every tag of an effective prompt skill, sorted. */
  tags(): readonly string[];
}

/** Winner first: higher priority, then later declaration, then source path for a stable order. */
function precedence(a: Candidate, b: Candidate): number {
  return (
    b.layer.priority - a.layer.priority ||
    b.layer.order - a.layer.order ||
    (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  );
}

function describe(c: Candidate): string {
  return `${c.source} (layer "${c.layer.name}", priority ${c.layer.priority})`;
}

const EFFECTIVE: CandidateStatus = { kind: "effective" };

function resolve(id: string, candidates: Candidate[], diagnostics: Diagnostic[]): Resolution {
  // Most ids have one candidate: nothing to rank.
  if (candidates.length === 1)
    return { id, effective: candidates[0]!, chain: [{ candidate: candidates[0]!, status: EFFECTIVE }] };
  const sorted = [...candidates].sort(precedence);
  const top = sorted[0]!;
  const rivals = sorted.filter((c) => c.layer === top.layer);
  if (rivals.length > 1) {
    // Two files of one layer claim the id: neither is more right, and a lower layer's copy is
    // not what anyone asked for. Serve nothing until it is fixed.
    diagnostics.push({
      severity: "error",
      code: "duplicate-id",
      file: rivals[0]!.path,
      message: `id "${id}" is defined ${rivals.length} times in layer "${top.layer.name}" (${rivals.map((c) => c.source).join(" and ")}), so it is not served`,
      hint: "keep one: rename or remove the others",
    });
    const chain = sorted.map<Provenance>((candidate) =>
      rivals.includes(candidate)
        ? { candidate, status: { kind: "conflicted", with: rivals.filter((r) => r !== candidate) } }
        : { candidate, status: { kind: "shadowed", by: rivals[0]! } },
    );
    return { id, chain };
  }
  const runnerUp = sorted[1];
  if (runnerUp && runnerUp.layer.priority === top.layer.priority) {
    diagnostics.push({
      severity: "note",
      code: "priority-tie",
      file: top.path,
      message: `id "${id}" has the same priority in layers "${top.layer.name}" and "${runnerUp.layer.name}"; "${top.layer.name}" wins because it is declared later (${describe(runnerUp)} is shadowed)`,
      hint: "give one of the two layers a higher priority to make the choice explicit",
    });
  }
  for (const layer of new Set(sorted.slice(1).map((c) => c.layer))) {
    const inLayer = sorted.filter((c) => c.layer === layer);
    if (inLayer.length > 1) {
      diagnostics.push({
        severity: "warning",
        code: "duplicate-id",
        file: inLayer[0]!.path,
        message: `id "${id}" is defined ${inLayer.length} times in layer "${layer.name}" (${inLayer.map((c) => c.source).join(" and ")}); harmless while ${describe(top)} overrides it`,
        hint: "keep one of them",
      });
    }
  }
  const chain = sorted.map<Provenance>((candidate, i) => ({
    candidate,
    status: i === 0 ? EFFECTIVE : { kind: "shadowed", by: top },
  }));
  return { id, effective: top, chain };
}

/**
 * Resolves every id once and builds the indexes requests use, so no request ever scans all
 * skills. Findings (conflicts, ties) are returned for the caller to report.
 */
export function buildRegistry(
  layers: readonly LayerRef[],
  candidates: readonly Candidate[],
): { registry: Registry; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const grouped = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const group = grouped.get(c.skill.id);
    if (group) group.push(c);
    else grouped.set(c.skill.id, [c]);
  }

  const resolutions = new Map<string, Resolution>();
  const effective = new Map<string, Candidate>();
  const served: Candidate[] = [];
  const prompts: Candidate[] = [];
  const tools: Candidate[] = [];
  const tagIndex = new Map<string, Candidate[]>();
  // Walking ids in sorted order leaves every list below sorted by id without a sort of its own.
  for (const id of [...grouped.keys()].sort()) {
    const resolution = resolve(id, grouped.get(id)!, diagnostics);
    resolutions.set(id, resolution);
    const winner = resolution.effective;
    if (!winner) continue;
    effective.set(id, winner);
    served.push(winner);
    if (winner.skill.type === "tool") {
      tools.push(winner);
      continue;
    }
    prompts.push(winner);
    for (const tag of winner.skill.tags) {
      const tagged = tagIndex.get(tag);
      if (tagged) tagged.push(winner);
      else tagIndex.set(tag, [winner]);
    }
  }
  const allResolutions = [...resolutions.values()];
  const tags = [...tagIndex.keys()].sort();

  const registry: Registry = {
    layers,
    get: (id) => effective.get(id),
    resolution: (id) => resolutions.get(id),
    resolutions: () => allResolutions,
    served: () => served,
    ofType: (type) => (type === "prompt" ? prompts : tools),
    promptsTagged: (tag) => tagIndex.get(tag) ?? [],
    tags: () => tags,
  };
  return { registry, diagnostics };
}
