/** `skill-central uninstall`: the server's entry removed from each IDE's MCP config, everything else kept byte for byte. */
import { applyUninstall, type Outcome } from "../install/apply.ts";
import { clientById, CLIENTS } from "../install/clients/index.ts";
import { CLIENT_IDS } from "../install/clients/client.ts";
import { hostFromEnv } from "../install/host.ts";
import { planUninstall, type Plan } from "../install/plan.ts";
import { mayApply } from "./install.ts";
import { command, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, json, plural } from "./support/command.ts";
import { flag } from "./support/options.ts";
import { clientIds, describeOutcome, describePlan, planJson, scopeOption } from "./support/install-output.ts";

export const spec = command({
  name: "uninstall",
  summary: "Remove the skill-central entry from your IDEs' MCP configs",
  usage: "uninstall [client…] [--scope user|project] [--dry-run] [--yes]",
  description:
    "Removes only the entry named skill-central; everything else in each file stays byte for byte,\n" +
    "a backup is kept beside it, and the file is replaced atomically. With no client named, every\n" +
    "client whose config has the entry is listed and you are asked first (--yes to skip the\n" +
    "question; with no terminal it writes nothing and exits 2: add --yes, or --dry-run). Clients:\n" +
    `${CLIENT_IDS.join(", ")}.`,
  options: {
    scope: scopeOption("The client's user config (default), or the project's file"),
    "dry-run": flag("Show the diffs and write nothing"),
    yes: flag("Do not ask before changing the clients found", { short: "y" }),
  },
  examples: ["skill-central uninstall", "skill-central uninstall cursor --dry-run"],
  positionals: { min: 0, max: CLIENT_IDS.length },
  async run(ctx) {
    const host = hostFromEnv();
    const ids = clientIds(ctx.args);
    const scope = ctx.options.scope;
    const named = ids.length > 0;
    const options = { scope, project: ctx.cwd, host };
    let plans: Plan[];
    if (named) plans = ids.map((id) => planUninstall(clientById(id), options));
    else {
      // Every client with a file at this scope; only those with an entry (or a broken file) are shown.
      plans = CLIENTS.filter((c) => c.file({ host, project: ctx.cwd, scope }) !== undefined)
        .map((c) => planUninstall(c, options))
        .filter((p) => p.action === "remove" || (p.action === "error" && p.file?.exists));
      if (plans.length === 0) {
        if (ctx.json) json(ctx, { dryRun: true, scope, clients: [] });
        else ctx.out(`No client has a skill-central entry in its ${scope} config.\n`);
        return EXIT_OK;
      }
    }
    if (!ctx.json)
      for (const plan of plans) (plan.action === "error" ? ctx.err : ctx.out)(`${describePlan(plan, ctx.colours)}\n`);
    const removable = plans.filter((p) => p.action === "remove");
    const errors = plans.filter((p) => p.action === "error");

    const go =
      ctx.options["dry-run"] || removable.length === 0
        ? "declined"
        : await mayApply(ctx, named, `Remove skill-central from ${plural(removable.length, "client")}?`, "uninstall");
    if (go !== "go") {
      if (ctx.json) json(ctx, { dryRun: true, scope, clients: plans.map((p) => planJson(p)) });
      else if (ctx.options["dry-run"]) ctx.out("\nDry run: nothing was written.\n");
      return go === "unasked" ? EXIT_USAGE : errors.length > 0 ? EXIT_FAILURE : EXIT_OK;
    }
    if (!ctx.json) ctx.out("\n");
    const outcomes = new Map<Plan, Outcome>();
    for (const plan of removable) {
      const outcome = await applyUninstall(plan);
      outcomes.set(plan, outcome);
      if (!ctx.json) (outcome.ok ? ctx.out : ctx.err)(describeOutcome(plan, outcome, ctx.colours));
    }
    const done = [...outcomes.values()].filter((o) => o.ok).length;
    const failed = outcomes.size - done + errors.length;
    if (ctx.json) json(ctx, { dryRun: false, scope, clients: plans.map((p) => planJson(p, outcomes.get(p))) });
    else
      ctx.out(
        `\n${done > 0 ? `Removed from ${plural(done, "client")}` : "Nothing removed"}${failed > 0 ? `; ${plural(failed, "client")} not (see above)` : ""}.\n`,
      );
    return failed > 0 ? EXIT_FAILURE : EXIT_OK;
  },
});
