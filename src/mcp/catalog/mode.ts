/**
 * Which tools a client is offered (its skills as tools, or the catalog's three), decided from what
 * it declares and the catalog settings, and the catalog tools' names that must fit every model API.
 */
import type { Server, ServerContext } from "@modelcontextprotocol/server";
import type { CatalogSettings } from "../../config/catalog-settings.ts";
import { SERVER_NAME } from "../../version.ts";
import { clientProfile, type ClientProfile } from "./client-profiles.ts";

/** The catalog tools. Underscores, so no skill id (lowercase words joined by hyphens) can take one. */
export const FIND_SKILLS = "find_skills";
export const LOAD_SKILL = "load_skill";
export const RUN_SKILL_TOOL = "run_skill_tool";

/**
 * What clients put before a server's tool names when they hand them to a model: Claude Code and
 * Codex both use `mcp__<server>__<tool>`, and model APIs take `^[a-zA-Z0-9_-]{1,64}$`. With the
 * server installed as `skill-central`, a tool's own name has 44 characters to fit.
 */
export const CLIENT_TOOL_PREFIX = `mcp__${SERVER_NAME}__`;
const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Whether `name`, prefixed as clients prefix it, is still a name every model API takes. */
export function fitsAsToolName(name: string): boolean {
  return MODEL_TOOL_NAME.test(CLIENT_TOOL_PREFIX + name);
}

const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * What each 2025-11-25 connection's client said in `initialize`, read from the request as sent:
 * the SDK keeps only the capabilities the specification defines, and the declared primitives
 * (see client-profiles.ts) are not among them.
 */
const initialized = new WeakMap<Server, ClientProfile>();

export function rememberClient(server: Server, profile: ClientProfile): void {
  initialized.set(server, profile);
}

/**
 * Who is asking. On 2026-07-28 every request carries the client's name and capabilities in its
 * `_meta` envelope, and the mode is decided per request from those; on a 2025-11-25 connection
 * it is what the client said in `initialize`.
 */
export function requestClient(server: Server, ctx: ServerContext | undefined): ClientProfile {
  const envelope = asObject(ctx?.mcpReq.envelope);
  const info = asObject(envelope?.[CLIENT_INFO_KEY]);
  if (info !== undefined) return clientProfile(info, asObject(envelope?.[CLIENT_CAPABILITIES_KEY]));
  return initialized.get(server) ?? clientProfile(server.getClientVersion(), asObject(server.getClientCapabilities()));
}

/** How many tool skills a snapshot has, by whether their names fit a client's tool list. */
export interface ToolSkillCounts {
  fitting: number;
  /** Names too long once prefixed: reachable through `run_skill_tool` only. */
  unfitting: number;
}

/** What one client is offered in `tools/list`. */
export interface ToolsPlan {
  /** `find_skills` and `load_skill` are listed. */
  catalog: boolean;
  /** `run_skill_tool` is listed: some tool skills are reachable only through it. */
  run: boolean;
  /** Tool skills (those whose names fit) are listed as tools of their own. */
  toolSkills: boolean;
  /** False when the token budget put prompt skills behind the catalog (token-budget.ts): `prompts/list` lists none. */
  prompts?: false;
  /** Why, in a few words, for people reading a plan (tests, debugging). */
  why: string;
}

/** The plan's identity, for caching listings: plans with the same key list the same tools. */
export function planKey(plan: ToolsPlan): string {
  return `${plan.catalog ? "c" : "-"}${plan.run ? "r" : "-"}${plan.toolSkills ? "t" : "-"}${plan.prompts === false ? "-" : "p"}`;
}

const CATALOG_TOOLS_WITHOUT_RUN = 2;

/**
 * The catalog rules (docs/catalog.md):
 * - `off`: no catalog tools; every tool skill whose name fits is a tool, as before.
 * - `on`: the catalog tools for every client, beside the prompts and tool skills.
 * - `auto`: the catalog tools for clients that take tools but not prompts, and whenever tool
 *   skills are moved behind the catalog.
 * Tool skills move behind `run_skill_tool` (and `find_skills` lists them) when `toolSkills` is
 * `catalog`, or when a capped client would otherwise get more than `toolCap` tools from us; a
 * tool skill whose name would not fit a client's tool list is always behind it.
 */
export function planTools(settings: CatalogSettings, client: ClientProfile, counts: ToolSkillCounts): ToolsPlan {
  const who = client.name === undefined ? "this client" : `"${client.name}"`;
  if (settings.mode === "off") return { catalog: false, run: false, toolSkills: true, why: "catalog: off" };
  const takesNoPrompts = client.prompts === "not-shown";
  const wanted = settings.mode === "on" || takesNoPrompts;
  let toolSkills = settings.toolSkills === "tools";
  let why = settings.mode === "on" ? "catalog: on" : takesNoPrompts ? `${who} takes tools but not prompts` : "";
  if (!toolSkills) why = join(why, "toolSkills: catalog");
  if (toolSkills && client.capped && counts.fitting > 0) {
    const own = wanted || counts.unfitting > 0 ? CATALOG_TOOLS_WITHOUT_RUN + (counts.unfitting > 0 ? 1 : 0) : 0;
    if (counts.fitting + own > settings.toolCap) {
      toolSkills = false;
      why = join(why, `${counts.fitting} tool skills would exceed toolCap ${settings.toolCap} for ${who}`);
    }
  }
  const behind = (toolSkills ? 0 : counts.fitting) + counts.unfitting;
  if (counts.unfitting > 0)
    why = join(
      why,
      `${counts.unfitting} tool skill name${counts.unfitting === 1 ? " is" : "s are"} too long for a tool list`,
    );
  const catalog = wanted || behind > 0;
  return {
    catalog,
    run: catalog && behind > 0,
    toolSkills,
    why: catalog ? why : `no catalog for ${who}: prompts and tool skills as they are`,
  };
}

function join(a: string, b: string): string {
  return a === "" ? b : `${a}; ${b}`;
}
