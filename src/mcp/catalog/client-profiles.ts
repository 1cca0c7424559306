/**
 * What we know of MCP clients, by the `clientInfo.name` each sends: whether it shows a server's
 * prompts to anyone, and whether it caps how many tools it takes. Sources are cited in
 * docs/catalog.md; a name not listed here is judged by what it declares (see `clientProfile`).
 */

/** `shown`: the client offers prompts (slash commands); `not-shown`: it takes tools only; `unknown`: nothing says. */
export type PromptSupport = "shown" | "not-shown" | "unknown";

export interface ClientProfile {
  /** `clientInfo.name` as sent; undefined when the client sent none. */
  name: string | undefined;
  prompts: PromptSupport;
  /** The client limits the tools it takes from all its servers together (so ours get `toolCap`). */
  capped: boolean;
  /** Which rule decided: the known-client table, the client's own declaration, or neither. */
  basis: "known-client" | "declared" | "unknown";
}

interface Known {
  prompts: Exclude<PromptSupport, "unknown">;
  capped: boolean;
}

/** Keys are lower-case; names are matched case-insensitively (clients have changed case before). */
const KNOWN_CLIENTS: ReadonlyMap<string, Known> = new Map<string, Known>([
  // Prompts as `/mcp__server__prompt` commands; MCP tools are loaded on demand (tool search), so no cap.
  ["claude-code", { prompts: "shown", capped: false }],
  // Claude Desktop and claude.ai share the name.
  ["claude-ai", { prompts: "shown", capped: false }],
  // Prompts as slash commands; the agent warns past ~40 tools in all.
  ["cursor-vscode", { prompts: "shown", capped: true }],
  // Prompts as `/server.prompt`; at most 128 tools per chat request.
  ["visual studio code", { prompts: "shown", capped: true }],
  ["visual-studio-code", { prompts: "shown", capped: true }],
  // "We currently support an MCP server's tools and resources, not prompts"; 100 tools in all.
  ["windsurf-client", { prompts: "not-shown", capped: true }],
  ["windsurf", { prompts: "not-shown", capped: true }],
  // codex-rs lists tools and resources, never prompts.
  ["codex-mcp-client", { prompts: "not-shown", capped: false }],
  ["codex", { prompts: "not-shown", capped: false }],
  // Cline fetches tools, resources and resource templates only.
  ["cline", { prompts: "not-shown", capped: false }],
  // Prompts as slash commands.
  ["zed", { prompts: "shown", capped: false }],
  ["gemini-cli-mcp-client", { prompts: "shown", capped: false }],
  // The MCP Inspector shows everything a server offers.
  ["mcp-inspector", { prompts: "shown", capped: false }],
  ["inspector-client", { prompts: "shown", capped: false }],
]);

const PRIMITIVES = ["prompts", "tools", "resources"] as const;

/**
 * The profile of a client from its `clientInfo` and capabilities. A known name decides. Otherwise
 * a client that lists the server primitives it uses among its capabilities (not part of the
 * specification, but some send `{ tools: {}, resources: {} }`) and leaves out `prompts` takes
 * tools only, and is treated as capped, since nothing says how many it takes; one that lists
 * `prompts` shows them. A client that declares nothing is unknown: served as before (prompts and
 * tools, no catalog).
 */
export function clientProfile(
  clientInfo: { name?: unknown } | undefined,
  capabilities: Record<string, unknown> | undefined,
): ClientProfile {
  const name = typeof clientInfo?.name === "string" ? clientInfo.name : undefined;
  const known = name === undefined ? undefined : KNOWN_CLIENTS.get(name.toLowerCase());
  if (known) return { name, ...known, basis: "known-client" };
  const declared = PRIMITIVES.filter(
    (key) => capabilities !== undefined && typeof capabilities[key] === "object" && capabilities[key] !== null,
  );
  if (declared.length > 0) {
    return declared.includes("prompts")
      ? { name, prompts: "shown", capped: false, basis: "declared" }
      : { name, prompts: "not-shown", capped: true, basis: "declared" };
  }
  return { name, prompts: "unknown", capped: false, basis: "unknown" };
}

/** Every known name with its profile, for the docs' table and its test. */
export function knownClients(): { name: string; prompts: Known["prompts"]; capped: boolean }[] {
  return [...KNOWN_CLIENTS].map(([name, known]) => ({ name, ...known }));
}
