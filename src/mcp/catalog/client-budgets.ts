/**
 * What each known client is called and the budget it publishes for a skill list, for
 * `skill-central budget` (sources in docs/catalog.md). The published figures are what the client
 * spends on its own skill list; the server acts on `tokenBudget` alone (token-budget.ts), so
 * a figure here is shown beside a client's cost, not applied.
 */
import { knownClients } from "./client-profiles.ts";

interface Published {
  label: string;
  /** o200k tokens; a figure published in characters is taken at four characters a token. */
  tokens?: number;
}

const PUBLISHED: ReadonlyMap<string, Published> = new Map<string, Published>([
  // About 1% of the context window for the skill list, past which descriptions are dropped; 1% of 200,000.
  ["claude-code", { label: "Claude Code", tokens: 2000 }],
  ["claude-ai", { label: "Claude Desktop, claude.ai" }],
  ["cursor-vscode", { label: "Cursor" }],
  ["visual studio code", { label: "VS Code (Copilot)" }],
  ["visual-studio-code", { label: "VS Code (Copilot)" }],
  ["windsurf-client", { label: "Windsurf" }],
  ["windsurf", { label: "Windsurf" }],
  // About 2% of the context, at most ~8,000 characters, for the skill list.
  ["codex-mcp-client", { label: "Codex", tokens: 2000 }],
  ["codex", { label: "Codex", tokens: 2000 }],
  ["cline", { label: "Cline" }],
  ["zed", { label: "Zed" }],
  ["gemini-cli-mcp-client", { label: "Gemini CLI" }],
  ["mcp-inspector", { label: "MCP Inspector" }],
  ["inspector-client", { label: "MCP Inspector" }],
]);

/** A client's display name: the known label, or the name it sends. */
export function clientLabel(name: string): string {
  return PUBLISHED.get(name.toLowerCase())?.label ?? name;
}

/** The budget a client publishes for its skill list, in tokens, where it publishes one. */
export function publishedBudget(name: string): number | undefined {
  return PUBLISHED.get(name.toLowerCase())?.tokens;
}

/** One name per known client (the first spelling of each label), for the `budget` report. */
export function knownClientNames(): string[] {
  const seen = new Set<string>();
  return knownClients()
    .map((c) => c.name)
    .filter((name) => {
      const label = clientLabel(name);
      if (seen.has(label)) return false;
      seen.add(label);
      return true;
    });
}
