import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ListResourcesResult,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import { quoted, SkillCentralError } from "../errors.ts";
import { registryView, resolutionView, skillView, type CandidateView, type SkillView } from "../registry/describe.ts";
import type { Registry } from "../registry/registry.ts";
import { paginate } from "./pagination.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";
import { perSnapshot } from "../registry/per-snapshot.ts";

export const REGISTRY_URI = "skill://registry";
export const SKILL_URI_PREFIX = "skill://skills/";
export const SKILL_URI_TEMPLATE = `${SKILL_URI_PREFIX}{id}`;
const JSON_MIME = "application/json";

/** What `skill://skills/{id}` reads as: the served skill, normalised, and how it won. */
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
  description: "Every skill id with the provenance of every candidate in every layer: source file, layer, priority and status (effective, shadowed, conflicted)",
  mimeType: JSON_MIME,
};

const SKILL_TEMPLATE: ResourceTemplate = {
  uriTemplate: SKILL_URI_TEMPLATE,
  name: "skill",
  title: "Skill by id",
  description: "One skill as served (normalised: tags, arguments, schema) with its resolution chain across layers",
  mimeType: JSON_MIME,
};

const TEMPLATES = [SKILL_TEMPLATE];

export function skillUri(id: string): string {
  return `${SKILL_URI_PREFIX}${id}`;
}

interface ResourceListing {
  resources: Resource[];
  /** Served ids, sorted: what `skill://skills/{id}` completes to. */
  ids: string[];
}

/** The registry resource, then one per served skill; sorted by URI (the cursor key). */
export const listResources = perSnapshot((registry: Registry): ResourceListing => {
  const served = registry.resolutions().flatMap((r) => (r.effective ? [r.effective] : []));
  const listing: ResourceListing = {
    resources: [
      REGISTRY_RESOURCE,
      ...served.map(({ skill }) => ({
        uri: skillUri(skill.id),
        name: skill.id,
        ...(skill.title !== undefined && { title: skill.title }),
        description: skill.description,
        mimeType: JSON_MIME,
      })),
    ],
    ids: served.map((c) => c.skill.id),
  };
  return listing;
});

export function listResourcesPage(registry: Registry, cursor: string | undefined, pageSize: number | undefined): ListResourcesResult {
  const page = paginate(listResources(registry).resources, (r) => r.uri, "resources/list", cursor, pageSize);
  return { resources: page.items, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
}

function unknownResource(uri: string, why: string): SkillCentralError {
  return new SkillCentralError("invalid-params", `Unknown resource: ${quoted(uri)} (${why})`);
}

function resourceText(registry: Registry, uri: string): string {
  if (uri === REGISTRY_URI) return JSON.stringify(registryView(registry), null, 2);
  if (!uri.startsWith(SKILL_URI_PREFIX)) {
    throw unknownResource(uri, `this server has ${REGISTRY_URI} and ${SKILL_URI_TEMPLATE}`);
  }
  const id = uri.slice(SKILL_URI_PREFIX.length);
  const resolution = registry.resolution(id);
  if (!resolution) throw unknownResource(uri, `no skill has the id "${id}"`);
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

export function readResource(registry: Registry, uri: string): ReadResourceResult {
  const cache = textsOf(registry);
  let text = cache.get(uri);
  if (text === undefined) {
    text = resourceText(registry, uri);
    cache.set(uri, text);
  }
  return { contents: [{ uri, mimeType: JSON_MIME, text }] };
}

export function registerResources(server: Server, source: RegistrySource): void {
  handle(server, ListResourcesRequestSchema, "resources/list", async (request) =>
    listResourcesPage(await source.current(), request.params?.cursor, source.pageSize()),
  );
  // One template: a single page, but a cursor from anywhere else is still refused.
  handle(server, ListResourceTemplatesRequestSchema, "resources/templates/list", (request) => ({
    resourceTemplates: paginate(TEMPLATES, (t) => t.uriTemplate, "resources/templates/list", request.params?.cursor, undefined).items,
  }));
  handle(server, ReadResourceRequestSchema, "resources/read", async (request) => readResource(await source.current(), request.params.uri));
}
