/** `resources/list` and `resources/read`: our JSON views of the registry and each skill, and the skills' own `SKILL.md` files. */
import { PaginatedRequestParamsSchema, ReadResourceRequestParamsSchema } from "@modelcontextprotocol/core";
import type {
  ListResourcesResult,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
} from "@modelcontextprotocol/server";
import { registryView, resolutionView, skillView, type CandidateView, type SkillView } from "../registry/describe.ts";
import type { Registry } from "../registry/registry.ts";
import type { Feature } from "./feature.ts";
import { paginate } from "./pagination.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";
import { perSnapshot } from "../registry/per-snapshot.ts";
import { publishedHeads } from "../registry/published-skills.ts";
import { SKILL_MD, SKILL_SCHEME } from "../skill/skill-uri.ts";
import { reportUse } from "./skill-use.ts";
import { unknownResource } from "./resource-errors.ts";
import { readSkillFile } from "./skill-files.ts";

/**
 * Our own JSON views, on a scheme of their own: `skill://` means a skill as the MCP skills extension
 * publishes it (skills-extension.ts).
 */
export const REGISTRY_URI = "skill-central://registry";
export const SKILL_URI_PREFIX = "skill-central://skills/";
export const SKILL_URI_TEMPLATE = `${SKILL_URI_PREFIX}{id}`;
/** A skill's `SKILL.md` as the MCP skills extension publishes it; its other files are beside it. */
export const SKILL_MD_URI_TEMPLATE = `${SKILL_SCHEME}{name}/SKILL.md`;
const JSON_MIME = "application/json";
const MARKDOWN_MIME = "text/markdown";

/** What `skill-central://skills/{id}` reads as: the served skill, normalised, and how it won. */
export interface SkillResource {
  id: string;
  /** False when a conflict inside the winning layer withdraws the id. */
  served: boolean;
  skill?: SkillView;
  /** Every candidate, winner first. */
  chain: CandidateView[];
}

const REGISTRY_RESOURCE: Resource = {
  uri: REGISTRY_URI,
  name: "registry",
  title: "Skill registry",
  description:
    "Every skill id with the provenance of every candidate in every layer: source file, layer, priority and status (effective, shadowed, conflicted)",
  mimeType: JSON_MIME,
};

const SKILL_TEMPLATE: ResourceTemplateType = {
  uriTemplate: SKILL_URI_TEMPLATE,
  name: "skill",
  title: "Skill by id",
  description: "One skill as served (normalised: tags, arguments, schema) with its resolution chain across layers",
  mimeType: JSON_MIME,
};

const SKILL_MD_TEMPLATE: ResourceTemplateType = {
  uriTemplate: SKILL_MD_URI_TEMPLATE,
  name: "skill-md",
  title: "Skill (SKILL.md)",
  description:
    "A skill's SKILL.md, as the MCP skills extension (io.modelcontextprotocol/skills) publishes it; skills/get lists its other files with their digests",
  mimeType: MARKDOWN_MIME,
};

/** Sorted by URI template (the cursor key). */
const TEMPLATES = [SKILL_TEMPLATE, SKILL_MD_TEMPLATE];

export function skillResourceUri(id: string): string {
  return `${SKILL_URI_PREFIX}${id}`;
}

interface ResourceListing {
  resources: Resource[];
  /** Served ids, sorted: what `skill-central://skills/{id}` completes to. */
  ids: string[];
  /** Published skills' names, sorted: what `skill://{name}/SKILL.md` completes to. */
  names: string[];
}

/**
 * The registry resource, one `skill-central://skills/<id>` per served skill, then the `SKILL.md`
 * of every published skill (name and description from its frontmatter, as the skills extension
 * asks; no size, which for a YAML skill would mean making its file). Sorted by URI, the cursor key: `skill-central://` sorts before `skill://`, and each part
 * is in URI order already.
 */
export const listResources = perSnapshot((registry: Registry): ResourceListing => {
  const served = registry.resolutions().flatMap((r) => (r.effective ? [r.effective] : []));
  const published = publishedHeads(registry);
  const listing: ResourceListing = {
    resources: [
      REGISTRY_RESOURCE,
      ...served.map(({ skill }) => ({
        uri: skillResourceUri(skill.id),
        name: skill.id,
        ...(skill.title !== undefined && { title: skill.title }),
        description: skill.description,
        mimeType: JSON_MIME,
      })),
      ...published.map((p) => ({ ...p, mimeType: MARKDOWN_MIME })),
    ],
    ids: served.map((c) => c.skill.id),
    names: published.map((p) => p.name).sort(),
  };
  return listing;
});

export function listResourcesPage(
  registry: Registry,
  cursor: string | undefined,
  pageSize: number | undefined,
): ListResourcesResult {
  const page = paginate(listResources(registry).resources, (r) => r.uri, "resources/list", cursor, pageSize);
  return { resources: page.items, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
}

function resourceText(registry: Registry, uri: string): string {
  if (uri === REGISTRY_URI) return JSON.stringify(registryView(registry), null, 2);
  if (!uri.startsWith(SKILL_URI_PREFIX)) {
    throw unknownResource(
      uri,
      `this server has ${REGISTRY_URI}, ${SKILL_URI_TEMPLATE} and the files of its skills under ${SKILL_SCHEME}<name>/`,
    );
  }
  const id = uri.slice(SKILL_URI_PREFIX.length);
  const resolution = registry.resolution(id);
  if (!resolution) throw unknownResource(uri, "no skill has that id");
  const view = resolutionView(resolution);
  const body: SkillResource = {
    id,
    served: view.served,
    ...(resolution.effective && { skill: skillView(resolution.effective) }),
    chain: view.chain,
  };
  return JSON.stringify(body, null, 2);
}

/** Rendered once per snapshot and URI. */
const textsOf = perSnapshot(() => new Map<string, string>());

/** The skill whose `SKILL.md` a `skill://` URI names, or undefined for any other resource. */
function skillMdName(uri: string): string | undefined {
  if (!uri.startsWith(SKILL_SCHEME) || !uri.endsWith(`/${SKILL_MD}`)) return undefined;
  const name = uri.slice(SKILL_SCHEME.length, -SKILL_MD.length - 1);
  return name === "" || name.includes("/") ? undefined : name;
}

export function readResource(registry: Registry, uri: string): ReadResourceResult {
  // A skill's file: read (and checked) on each request, never held.
  if (uri.startsWith(SKILL_SCHEME)) return readSkillFile(registry, uri);
  const cache = textsOf(registry);
  let text = cache.get(uri);
  if (text === undefined) {
    text = resourceText(registry, uri);
    cache.set(uri, text);
  }
  return { contents: [{ uri, mimeType: JSON_MIME, text }] };
}

export const resourcesFeature: Feature = {
  name: "resources",
  capabilities: ({ live }) => ({ resources: { listChanged: live } }),
  register(server, source: RegistrySource, { onUse }) {
    handle(server, "resources/list", PaginatedRequestParamsSchema, async (params) =>
      listResourcesPage(await source.current(), params.cursor, source.pageSize()),
    );
    // Two templates: a single page, but a cursor from anywhere else is still refused.
    handle(server, "resources/templates/list", PaginatedRequestParamsSchema, (params) => ({
      resourceTemplates: paginate(TEMPLATES, (t) => t.uriTemplate, "resources/templates/list", params.cursor, undefined)
        .items,
    }));
    handle(server, "resources/read", ReadResourceRequestParamsSchema, async (params, ctx) => {
      const registry = await source.current();
      const result = readResource(registry, params.uri);
      // Reading a skill's SKILL.md is how a host that reads the skills extension loads the skill.
      const name = onUse && skillMdName(params.uri);
      if (name !== undefined) reportUse(onUse, server, ctx, registry, name, "resources/read", "ok");
      return result;
    });
  },
  lists: [{ kind: "resources", entries: (registry) => listResources(registry).resources }],
};
