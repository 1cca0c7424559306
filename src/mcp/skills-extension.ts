/**
 * The MCP skills extension (`io.modelcontextprotocol/skills`, SEP-2640): `skills/list`,
 * `skills/get` and `resources/directory/read` over the layered registry's published skills
 * (registry/published-skills.ts); the files themselves are read through `resources/read`
 * (resources.ts → skill-files.ts).
 *
 * Written over our registry rather than with the SDK's `SkillsExtension`: that class attaches
 * only to an `McpServer` (we serve through the lower-level `Server`, whose resources/read we own),
 * and it re-validates every entry of a custom source on every request, dropping a skill whose
 * description is over 1,024 characters. Such a skill is still ours to publish (the host decides;
 * `validate` warns), and the entries are built once per snapshot, not checked per request.
 */
import {
  GetSkillRequestParamsSchema,
  ListSkillsRequestParamsSchema,
  ReadResourceDirectoryRequestParamsSchema,
  RESOURCES_DIRECTORY_READ_METHOD,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
  type Skill as SkillEntry,
} from "@modelcontextprotocol/core/ext/skills";
import type { Server } from "@modelcontextprotocol/server";
import { quoted } from "../errors.ts";
import { perSnapshot } from "../registry/per-snapshot.ts";
import { publicationFingerprint, publishedCatalog, type PublishedSkill } from "../registry/published-skills.ts";
import { originView, type OriginView } from "../registry/describe.ts";
import type { Registry } from "../registry/registry.ts";
import { cacheHints } from "./cache-hints.ts";
import type { Feature, FeatureOptions } from "./feature.ts";
import { paginate } from "./pagination.ts";
import type { RegistrySource } from "./registry-source.ts";
import { reportUse } from "./skill-use.ts";
import { handle } from "./request-handler.ts";
import { invalidUri } from "./resource-errors.ts";
import { readSkillFolder, skillAtManifestUri } from "./skill-files.ts";

/**
 * Where an entry says which layer and file it was served from. A reverse-domain prefix of our
 * own, as the extension asks of intermediaries (`io.modelcontextprotocol.skills/` is reserved).
 */
const PROVENANCE_META_KEY = "dev.skill-central/provenance";

export interface EntryProvenance {
  layer: string;
  priority: number;
  /** The file it was read from, as people read it (relative to the project, `builtin:…`). */
  source: string;
  /** As written: an Agent Skills folder, or a YAML prompt skill published as a synthesised SKILL.md. */
  format: "skill-md" | "yaml";
}

/** With a remote layer's source (git URL and commit, or index URL) and signer (docs/provenance.md). */
type EntryMeta = EntryProvenance & Partial<OriginView>;

/**
 * The audit (registry/audit-attestation.ts and its rules) is loaded with the first `skills/list` or `skills/get`,
 * not at start: compiling its rules costs ~6 MB and ~20 ms that a client which never reads the
 * extension should not pay.
 */
let auditing: typeof import("../registry/audit-attestation.ts") | undefined;

/** The approval a skill is served under (`policy.approval`; docs/governance.md): who, when, which digest. */
const APPROVAL_META_KEY = "dev.skill-central/approval";
const loadAudit = async (): Promise<void> => {
  auditing ??= await import("../registry/audit-attestation.ts");
};

/**
 * `dev.skill-central/audit` (registry/audit-attestation.ts), absent while the snapshot's audit is
 * still running (`attested` false: never scanned inside a request) or the skill's files cannot be read.
 */
function auditMeta(skill: PublishedSkill, attested: boolean): Record<string, unknown> {
  const attestation = attested ? auditing?.auditAttestation(skill) : undefined;
  return attestation && auditing ? { [auditing.AUDIT_META_KEY]: attestation } : {};
}

/** Whether a snapshot's attestations are ready; the first call starts its audit, off the request. */
const attestedIn = (registry: Registry): boolean => auditing?.attestationsReady(registry) ?? false;

/** A published skill as a `skills/list` / `skills/get` entry. */
function skillEntry(skill: PublishedSkill, attested: boolean): SkillEntry {
  const { candidate } = skill;
  const provenance: EntryMeta = {
    layer: candidate.layer.name,
    priority: candidate.layer.priority,
    source: candidate.source,
    format: skill.synthesised ? "yaml" : "skill-md",
    ...originView(candidate.layer),
  };
  return {
    uri: skill.uri,
    frontmatter: skill.frontmatter,
    resources: skill.files.map(({ uri, digest, size }) => ({ uri, digest, size })),
    _meta: {
      [PROVENANCE_META_KEY]: provenance,
      ...auditMeta(skill, attested),
      ...(candidate.approval && { [APPROVAL_META_KEY]: candidate.approval }),
    },
  };
}

/**
 * Every entry of a snapshot, in URI order: built once (once more when its audit is done), then
 * paged by every `skills/list`.
 */
const attestedEntries = perSnapshot((registry: Registry): SkillEntry[] =>
  publishedCatalog(registry).skills.map((skill) => skillEntry(skill, true)),
);
const pendingEntries = perSnapshot((registry: Registry): SkillEntry[] =>
  publishedCatalog(registry).skills.map((skill) => skillEntry(skill, false)),
);
const skillEntries = (registry: Registry): SkillEntry[] =>
  attestedIn(registry) ? attestedEntries(registry) : pendingEntries(registry);

/** The first protocol revision whose results carry `ttlMs` and `cacheScope`. */
const CACHEABLE_FROM = "2026-07-28";

/**
 * `ttlMs` and `cacheScope`, which these results carry from 2026-07-28 on (the SDK adds them only
 * to the base protocol's methods). The same promise as `resources/read`: never fresh while the
 * skills are watched, for the process lifetime TTL under `--no-watch`.
 */
function cacheFields(server: Server, options: FeatureOptions): { ttlMs?: number; cacheScope?: "public" | "private" } {
  if ((server.getNegotiatedProtocolVersion() ?? "") < CACHEABLE_FROM) return {};
  const hint = cacheHints(options)["resources/read"]!;
  return { ttlMs: hint.ttlMs ?? 0, cacheScope: hint.cacheScope ?? "public" };
}

export function listSkillsPage(
  registry: Registry,
  cursor: string | undefined,
  pageSize: number | undefined,
): { skills: SkillEntry[]; nextCursor?: string } {
  const page = paginate(skillEntries(registry), (s) => s.uri, SKILLS_LIST_METHOD, cursor, pageSize);
  return { skills: page.items, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
}

/** The published skill `skills/get` names, or -32602. */
function servedSkill(registry: Registry, uri: string): PublishedSkill {
  const skill = skillAtManifestUri(registry, uri);
  if (!skill)
    throw invalidUri(`No skill is served at ${quoted(uri)} (skills/list lists the skills of this server)`, uri);
  return skill;
}

export const skillsExtensionFeature: Feature = {
  name: "skills-extension",
  // The extension requires `resources`, which resources.ts declares.
  capabilities: () => ({ extensions: { [SKILLS_EXTENSION_ID]: { directoryRead: true } } }),
  register(server, source: RegistrySource, options: FeatureOptions) {
    handle(server, SKILLS_LIST_METHOD, ListSkillsRequestParamsSchema, async (params) => {
      const registry = await source.current();
      await loadAudit();
      return { ...listSkillsPage(registry, params.cursor, source.pageSize()), ...cacheFields(server, options) };
    });
    handle(server, SKILLS_GET_METHOD, GetSkillRequestParamsSchema, async (params, ctx) => {
      const registry = await source.current();
      await loadAudit();
      const skill = servedSkill(registry, params.uri);
      reportUse(options.onUse, server, ctx, registry, skill.candidate.skill.id, SKILLS_GET_METHOD, "ok");
      return { skill: skillEntry(skill, attestedIn(registry)), ...cacheFields(server, options) };
    });
    handle(server, RESOURCES_DIRECTORY_READ_METHOD, ReadResourceDirectoryRequestParamsSchema, async (params) => ({
      ...readSkillFolder(await source.current(), params.uri, params.cursor, source.pageSize()),
      ...cacheFields(server, options),
    }));
  },
  // An entry changes with any file's digest: a reload that changes a file announces resources/list_changed.
  lists: [{ kind: "resources", entries: publicationFingerprint }],
};
