/** What an MCP area (prompts, tools, resources, …) is to the server: its capabilities, its handlers, and the uses it reports. */
import type { Server, ServerCapabilities } from "@modelcontextprotocol/server";
import type { CatalogSettings } from "../config/catalog-settings.ts";
import type { Registry } from "../registry/registry.ts";
import type { UseOutcome } from "../storage/usage-report.ts";
import type { RegistrySource } from "./registry-source.ts";

/** The lists a client caches and is told about when they change. */
export type ListKind = "prompts" | "tools" | "resources";

/** How a skill reached a client: the request that used it (`skills:compose` for each skill it joined). */
export type SkillUseVia =
  | "prompts/get"
  | "tools/call"
  | "load_skill"
  | "run_skill_tool"
  | "skills/get"
  | "resources/read"
  | "skills:compose";

/** One use of a skill, as the handlers tell it (never an argument value or rendered text). */
export interface SkillUse {
  skill: string;
  layer: string;
  via: SkillUseVia;
  outcome: UseOutcome;
  /** The client's `clientInfo.name`, when it gave one. */
  client?: string;
  /** The digest of the skill as served (`sha256:…`). */
  digest?: string;
}

/**
 * Hears each use of a skill the registry serves: only after the registry answered, so an id no
 * skill has is never heard (usage metrics keep one series per served id, bounded by the skills).
 */
export type OnSkillUse = (use: SkillUse) => void;

export interface FeatureOptions {
  /** The skills are watched and reloaded: lists change while the server runs. */
  live: boolean;
  /**
   * Every request stands alone (HTTP `--stateless`): a 2025-11-25 client is not known after its
   * `initialize`, so nothing may be promised to it by name (2026-07-28 requests name their client).
   */
  stateless?: boolean;
  /**
   * What is served differs by caller (a layer declares `visibleTo`, docs/layer-access.md): no
   * result may be shared between users, so every cache hint is `private`.
   */
  perCaller?: boolean;
  /** Usage metrics (HTTP with `/metrics`) and the usage history; absent, nothing is counted and nothing costs. */
  onUse?: OnSkillUse;
}

/**
 * One MCP area of the server (prompts, tools, resources, completions, …): what it declares and
 * the handlers that serve it. Adding an area is writing one of these and listing it in
 * `FEATURES` (server.ts); both transports and both protocol eras then serve it.
 */
export interface Feature {
  readonly name: string;
  /** Merged into the capabilities `initialize` and `server/discover` declare. */
  capabilities(options: FeatureOptions): ServerCapabilities;
  /** Registers the area's request handlers on a fresh server instance (one per connection or request). */
  register(server: Server, source: RegistrySource, options: FeatureOptions): void;
  /**
   * The entries this area contributes to a client-cached list. After a reload, a list whose
   * entries differ from the previous snapshot's is announced (list_changed). A list that varies
   * by client (tools, with the catalog) returns what every kind of client would see.
   */
  readonly lists?: readonly { kind: ListKind; entries(registry: Registry, catalog: CatalogSettings): unknown }[];
}
