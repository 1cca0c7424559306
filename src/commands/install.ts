/** `skill-central install`: the server's entry added to each IDE's MCP config, with a diff, a backup and a check that it starts. */
import { ENV_NAME_PATTERN } from "../config/config-names.ts";
import { applyInstall, type Outcome } from "../install/apply.ts";
import { clientById, CLIENTS } from "../install/clients/index.ts";
import { CLIENT_IDS, type ClientSpec } from "../install/clients/client.ts";
import { detectClients } from "../install/detect.ts";
import type { Scope } from "../install/entry.ts";
import { hostFromEnv, type Host } from "../install/host.ts";
import { currentLaunch, type Launch } from "../install/launch.ts";
import { planInstall, type Plan } from "../install/plan.ts";
import { DEFAULT_VERIFY_TIMEOUT_MS, verifier } from "../install/verify.ts";
import { confirm, stdinIsTerminal } from "./support/confirm.ts";
import {
  command,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_USAGE,
  json,
  plural,
  UsageError,
  type CommandContext,
} from "./support/command.ts";
import { flag, text, value } from "./support/options.ts";
import {
  clientIds,
  describeOutcome,
  describePlan,
  planJson,
  scopeOption,
  shellLine,
} from "./support/install-output.ts";
import { visibleLine } from "../visible-text.ts";

function httpUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--http needs a URL such as http://127.0.0.1:8787/mcp, not "${url}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new UsageError(`--http needs an http:// or https:// URL, not "${url}"`);
  return url;
}

function verifyTimeoutMs(raw: string): number {
  const seconds = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(seconds > 0))
    throw new UsageError(`--verify-timeout must be a positive number of seconds, not "${raw}"`);
  return seconds * 1000;
}

function httpOption(
  ctx: CommandContext<{ readonly http: string | undefined; readonly "token-env": string | undefined }>,
  host: Host,
): { url: string; tokenEnv?: string } | undefined {
  const { http: url, "token-env": tokenEnv } = ctx.options;
  if (url === undefined) {
    if (tokenEnv !== undefined) throw new UsageError("--token-env goes with --http <url>");
    return undefined;
  }
  if (tokenEnv === undefined) return { url };
  if (!ENV_NAME_PATTERN.test(tokenEnv))
    throw new UsageError(`--token-env takes the name of an environment variable, not "${tokenEnv}"`);
  if (!host.env[tokenEnv])
    throw new UsageError(
      `--token-env ${tokenEnv}: the variable is not set here; set it (the entry is checked with it), then run this again`,
    );
  return { url, tokenEnv };
}

export function launchText(launch: Launch): string {
  const what =
    launch.kind === "binary"
      ? "this binary"
      : launch.kind === "bunx"
        ? "the installed package, with bunx"
        : "this checkout, with bun";
  return `${shellLine([launch.command, ...launch.prefix, "mcp"])} (${what})`;
}

/**
 * Without named clients, the ones found on this machine that have a config file for `scope`
 * (said on the terminal); undefined when none is found at all.
 */
function detectedClients(ctx: CommandContext, host: Host, scope: Scope): ClientSpec[] | undefined {
  const detected = detectClients(host);
  if (detected.length === 0) {
    ctx.err(
      `skill-central install: no MCP client found on this machine (looked for ${CLIENTS.map((c) => c.name).join(", ")}); name one, e.g. skill-central install cursor\n`,
    );
    return undefined;
  }
  const usable = detected.filter((d) => d.client.file({ host, project: ctx.cwd, scope }) !== undefined);
  const skipped = detected.filter((d) => !usable.includes(d)).map((d) => d.client.name);
  if (!ctx.json) {
    // A reason names a path found on this machine: shown, never obeyed.
    ctx.out(
      `${ctx.colours.bold("Found")} ${visibleLine(detected.map((d) => `${d.client.name} (${d.reason})`).join(", "))}\n`,
    );
    if (skipped.length > 0) ctx.out(`Skipped (no project config file; use --scope user): ${skipped.join(", ")}\n`);
  }
  return usable.map((d) => d.client);
}

/**
 * Without named clients: ask on a terminal, go ahead with --yes. With no one to ask (stdin not a
 * terminal, or --json) nothing is written and the command fails with a usage error saying what to
 * add: a script that exited 0 there could not tell that nothing happened.
 */
export async function mayApply(
  ctx: CommandContext<{ readonly yes: boolean }>,
  named: boolean,
  question: string,
  verb: "install" | "uninstall",
): Promise<"go" | "declined" | "unasked"> {
  if (named || ctx.options.yes) return "go";
  if (ctx.json || !stdinIsTerminal()) {
    const why = ctx.json ? "--json does not ask" : "stdin is not a terminal, so there was no one to ask";
    ctx.err(
      `\nskill-central ${verb}: nothing was written: ${why}. Run again with --yes to ${verb}, or with --dry-run to only show the changes (or name the clients).\n`,
    );
    return "unasked";
  }
  const yes = await confirm(`\n${question} [y/N] `, ctx.out);
  if (!yes) ctx.out("Nothing was written.\n");
  return yes ? "go" : "declined";
}

export const spec = command({
  name: "install",
  summary: "Register the server in your IDEs' MCP configs (diff, backup, verify)",
  usage: "install [client…] [--scope user|project] [--dry-run] [--force] [--yes] [--http <url> [--token-env <VAR>]]",
  description:
    "Adds an entry named skill-central to each client's MCP config. Clients:\n" +
    `${CLIENT_IDS.join(", ")}.\n` +
    "With no client named, it finds the clients on this machine (config folder or command), shows\n" +
    "the changes and asks first (--yes to skip the question; with no terminal it writes nothing and\n" +
    "exits 2: add --yes, or --dry-run to only show them).\n" +
    "The entry starts this install: this binary, `bunx skill-central`, or this checkout. Every change\n" +
    "is shown as a diff, a backup is kept beside the file, the file is replaced atomically with only\n" +
    "our entry changed, and the entry is then started exactly as the client would start it\n" +
    "(initialize, then its prompts, tools and resources listed and counted); if that fails the file\n" +
    "is put back. An existing skill-central entry that differs is replaced only with --force.\n" +
    "Details: docs/install-ides.md.",
  options: {
    scope: scopeOption("The client's user config (default), or the project's file where the client has one"),
    "dry-run": flag("Show the diffs and write nothing"),
    force: flag("Replace an existing skill-central entry that differs"),
    yes: flag("Do not ask before changing the detected clients", { short: "y" }),
    http: value("<url>", "Register a running HTTP server instead of starting one per client", httpUrl),
    "token-env": text("<VAR>", "With --http: the environment variable that holds the bearer token"),
    "verify-timeout": value(
      "<s>",
      `How long the check waits for the server (default ${DEFAULT_VERIFY_TIMEOUT_MS / 1000})`,
      verifyTimeoutMs,
      { default: DEFAULT_VERIFY_TIMEOUT_MS },
    ),
  },
  examples: [
    "skill-central install",
    "skill-central install cursor vscode --dry-run",
    "skill-central install claude-code --scope project",
    "skill-central install codex --http https://skills.example.com/mcp --token-env SKILLS_TOKEN",
  ],
  positionals: { min: 0, max: CLIENT_IDS.length },
  async run(ctx) {
    const host = hostFromEnv();
    const ids = clientIds(ctx.args);
    const scope = ctx.options.scope;
    const http = httpOption(ctx, host);
    const timeoutMs = ctx.options["verify-timeout"];
    const dryRun = ctx.options["dry-run"];
    const launch = currentLaunch(host);
    const named = ids.length > 0;
    const { bold } = ctx.colours;

    const clients = named ? ids.map(clientById) : detectedClients(ctx, host, scope);
    if (!clients) return EXIT_FAILURE;

    const plans: Plan[] = clients.map((client) =>
      planInstall(client, { scope, project: ctx.cwd, host, force: ctx.options.force }, launch, http),
    );
    if (!ctx.json) {
      ctx.out(
        `${bold("Entry")}: ${http ? `${http.url}${http.tokenEnv ? ` (token from ${http.tokenEnv})` : ""}` : launchText(launch)}\n\n`,
      );
      for (const plan of plans) (plan.action === "error" ? ctx.err : ctx.out)(`${describePlan(plan, ctx.colours)}\n`);
    }
    const actionable = plans.filter(
      (p) => p.action === "create" || p.action === "add" || p.action === "update" || p.action === "unchanged",
    );
    const blocked = plans.filter((p) => p.action === "error" || p.action === "differs");
    const entry = http ?? { kind: launch.kind, command: launch.command, args: [...launch.prefix, "mcp"] };

    const go =
      dryRun || actionable.length === 0
        ? "declined"
        : await mayApply(ctx, named, `Install skill-central in ${plural(actionable.length, "client")}?`, "install");
    if (go !== "go") {
      if (ctx.json) json(ctx, { dryRun: true, scope, project: ctx.cwd, entry, clients: plans.map((p) => planJson(p)) });
      else if (dryRun) ctx.out("\nDry run: nothing was written.\n");
      return go === "unasked" ? EXIT_USAGE : blocked.length > 0 ? EXIT_FAILURE : EXIT_OK;
    }

    if (!ctx.json) ctx.out("\n");
    const verify = verifier(timeoutMs, http?.tokenEnv);
    const outcomes = new Map<Plan, Outcome>();
    for (const plan of actionable) {
      const outcome = await applyInstall(plan, verify);
      outcomes.set(plan, outcome);
      if (!ctx.json) (outcome.ok ? ctx.out : ctx.err)(describeOutcome(plan, outcome, ctx.colours));
    }
    const done = [...outcomes.values()].filter((o) => o.ok).length;
    const failed = outcomes.size - done + blocked.length;
    if (ctx.json)
      json(ctx, {
        dryRun: false,
        scope,
        project: ctx.cwd,
        entry,
        clients: plans.map((p) => planJson(p, outcomes.get(p))),
      });
    else
      ctx.out(
        `\n${done > 0 ? `Installed in ${plural(done, "client")}` : "Nothing installed"}${failed > 0 ? `; ${plural(failed, "client")} not (see above)` : ""}. Restart the IDEs (or reload their MCP servers) to pick it up.\n`,
      );
    return failed > 0 ? EXIT_FAILURE : EXIT_OK;
  },
});
