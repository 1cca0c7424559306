/**
 * `skill-central budget`: what each client is sent to learn the catalog, in o200k tokens and
 * characters, counted from the server's own instructions and lists (src/mcp/catalog/sent-parts.ts),
 * under the plan the server would give that client (its token budget included), against the
 * client's budget where one is known. The counting is src/mcp/catalog/budget.ts, which the board
 * shows too; this file only prints it.
 */
import { DEFAULT_CATALOG_SETTINGS } from "../config/catalog-settings.ts";
import { clientCost, type ClientCost } from "../mcp/catalog/budget.ts";
import { knownClientNames } from "../mcp/catalog/client-budgets.ts";
import { TOKENIZER } from "../mcp/catalog/token-count.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, reportLoad } from "./support/command.ts";
import { list, positiveInt } from "./support/options.ts";
import { visibleLine } from "../visible-text.ts";

const BAR = 30;

function bar(used: number, limit: number): string {
  const filled = Math.min(BAR, Math.round((used / limit) * BAR));
  return `[${"#".repeat(filled)}${".".repeat(BAR - filled)}]`;
}

const n = (value: number) => value.toLocaleString("en-US");

function describe(cost: ClientCost, top: number): string {
  // The client name (--client, as a server would be sent it) is in the label and the plan's reason: shown, never obeyed.
  const head = visibleLine(
    `${cost.label} (${cost.client}): ${n(cost.tokens)} tokens, ${n(cost.chars)} characters; plan: ${cost.plan}`,
  );
  let text = `${head}\n`;
  if (cost.budget !== null) {
    const whose = cost.budget.source === "tokenBudget" ? "tokenBudget" : "published budget, not applied";
    const pct = Math.round((cost.tokens / cost.budget.tokens) * 100);
    text += `  ${bar(cost.tokens, cost.budget.tokens)} ${pct}% of ${n(cost.budget.tokens)} (${whose})${cost.over ? " OVER" : ""}\n`;
  } else text += "  no known budget (set tokenBudget to give one)\n";
  if (cost.full !== undefined)
    text += `  the full catalog would be ${n(cost.full.tokens)} tokens: over tokenBudget, so this client gets the catalog\n`;
  for (const skill of cost.skills.slice(0, top))
    text += `    ${String(skill.tokens).padStart(6)}  ${visibleLine(skill.id)}\n`;
  if (cost.skills.length > top) text += `    … and ${cost.skills.length - top} more skills (--json lists them all)\n`;
  return text;
}

export const spec = command({
  name: "budget",
  summary: "Show what the catalog costs each client in tokens, against its budget",
  usage: "budget [--client <name>]… [--top <n>] [--json]",
  description:
    "Counts, with the o200k_base tokenizer, what each known client is sent to learn the skills: the initialize\n" +
    "instructions, tools/list and, where the client shows prompts, prompts/list, exactly as the server builds\n" +
    "them, under the plan it would give that client (a client over tokenBudget gets the catalog instead).\n" +
    "--client adds (or, repeated, chooses) clients by the clientInfo.name they send. See docs/catalog.md.",
  options: {
    client: list("<name>", "Only this client, by its clientInfo.name (repeatable)"),
    top: positiveInt("<n>", "The costliest skills shown per client (default 5)", { default: 5 }),
  },
  examples: ["skill-central budget", "skill-central budget --client claude-code --json"],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const settings = loaded.config.catalog ?? DEFAULT_CATALOG_SETTINGS;
    const names = ctx.options.client.length > 0 ? ctx.options.client : knownClientNames();
    const clients = names.map((name) => clientCost(loaded.registry, settings, name));
    if (ctx.json) json(ctx, { tokenizer: TOKENIZER, clients });
    else ctx.out(clients.map((c) => describe(c, ctx.options.top)).join("\n"));
    return clients.some((c) => c.over && c.budget?.source === "tokenBudget") ? EXIT_FAILURE : EXIT_OK;
  },
});
