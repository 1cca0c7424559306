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
import type { Registry } from "../registry/registry.ts";
import type { CatalogSettings } from "../config/catalog-settings.ts";
import { budgetAdvice, type BudgetAdvice } from "./support/budget-advice.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, plural, reportLoad } from "./support/command.ts";
import { flag, list, positiveInt } from "./support/options.ts";
import { visibleLine } from "../visible-text.ts";

const BAR = 30;

function bar(used: number, limit: number): string {
  const filled = Math.min(BAR, Math.round((used / limit) * BAR));
  return `[${"#".repeat(filled)}${".".repeat(BAR - filled)}]`;
}

const n = (value: number) => value.toLocaleString("en-US");

/** The lines that say how to act on a published budget: the config line, and what it changes for this client. */
function adviceText(cost: ClientCost, advice: BudgetAdvice): string {
  const { applied } = advice;
  let text = `  to apply it, add \`${advice.line}\` to skill-central.yaml (it applies to every client; docs/catalog.md#token-budgets)\n`;
  const what = applied.plan === "catalog" ? "the catalog plan: " : "";
  const still = applied.over ? `, still over ${n(cost.budget!.tokens)} (the catalog plan alone costs that much)` : "";
  text += visibleLine(
    `  then ${cost.label} gets ${what}${n(applied.tokens)} tokens instead of ${n(cost.tokens)}${still}`,
  );
  text += "\n";
  if (advice.promptsBehindCatalog > 0)
    text += `    ${plural(advice.promptsBehindCatalog, "prompt")} leave its prompt list (no slash command; find_skills and load_skill still reach them)\n`;
  if (advice.toolsBehindCatalog > 0)
    text += `    ${plural(advice.toolsBehindCatalog, "tool skill")} go behind run_skill_tool\n`;
  if (advice.alsoSwitches.length > 0)
    text += `${visibleLine(`  the same line gives the catalog plan to ${advice.alsoSwitches.join(", ")} too`)}\n`;
  return text;
}

function describe(cost: ClientCost, top: number, advice: BudgetAdvice | undefined): string {
  // The client name (--client, as a server would be sent it) is in the label and the plan's reason: shown, never obeyed.
  const head = visibleLine(
    `${cost.label} (${cost.client}): ${n(cost.tokens)} tokens, ${n(cost.chars)} characters; plan: ${cost.plan}`,
  );
  let text = `${head}\n`;
  if (cost.budget !== null) {
    const whose = cost.budget.source === "tokenBudget" ? "tokenBudget" : "published budget, not applied";
    const pct = Math.round((cost.tokens / cost.budget.tokens) * 100);
    text += `  ${bar(cost.tokens, cost.budget.tokens)} ${pct}% of ${n(cost.budget.tokens)} (${whose})${cost.over ? " OVER" : ""}\n`;
    if (advice !== undefined) text += adviceText(cost, advice);
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
  usage: "budget [--client <name>]… [--top <n>] [--fail-over] [--json]",
  description:
    "Counts, with the o200k_base tokenizer, what each known client is sent to learn the skills: the initialize\n" +
    "instructions, tools/list and, where the client shows prompts, prompts/list, exactly as the server builds\n" +
    "them, under the plan it would give that client (a client over tokenBudget gets the catalog instead).\n" +
    "A client over the budget its vendor publishes (shown, not applied) is told the line that applies it\n" +
    "and what that client is sent then. --client adds (or, repeated, chooses) clients by the clientInfo.name\n" +
    "they send. Exit 1 when a client is over tokenBudget, or with --fail-over over any budget, published\n" +
    "ones included (for CI); 0 otherwise. See docs/catalog.md.",
  options: {
    client: list("<name>", "Only this client, by its clientInfo.name (repeatable)"),
    top: positiveInt("<n>", "The costliest skills shown per client (default 5)", { default: 5 }),
    "fail-over": flag("Exit 1 when a client is over any budget, a published one too (CI)"),
  },
  examples: [
    "skill-central budget",
    "skill-central budget --client claude-code --json",
    "skill-central budget --fail-over",
  ],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const settings = loaded.config.catalog ?? DEFAULT_CATALOG_SETTINGS;
    const names = ctx.options.client.length > 0 ? ctx.options.client : knownClientNames();
    const clients = names.map((name) => clientCost(loaded.registry, settings, name));
    const advice = adviceFor(loaded.registry, settings, clients);
    if (ctx.json)
      json(ctx, {
        tokenizer: TOKENIZER,
        clients: clients.map((c, i) => ({ ...c, ...(advice[i] && { apply: advice[i] }) })),
      });
    else ctx.out(clients.map((c, i) => describe(c, ctx.options.top, advice[i])).join("\n"));
    // Over tokenBudget, the server already gives the catalog and it still does not fit: always a failure.
    const failing = clients.filter((c) => c.over && (c.budget?.source === "tokenBudget" || ctx.options["fail-over"]));
    if (failing.length > 0 && !ctx.json)
      ctx.err(
        `${plural(failing.length, "client")} over budget: ${failing.map((c) => visibleLine(c.label)).join(", ")}\n`,
      );
    return failing.length > 0 ? EXIT_FAILURE : EXIT_OK;
  },
});

/** Each client's advice, the others being those reported (`--client` narrows both). */
function adviceFor(
  registry: Registry,
  settings: CatalogSettings,
  clients: readonly ClientCost[],
): (BudgetAdvice | undefined)[] {
  const names = clients.map((c) => c.client);
  return clients.map((c) => budgetAdvice(registry, settings, c, names));
}
