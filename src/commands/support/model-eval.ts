/**
 * `skill-central eval --model`: the flags read into a model client (provider, base URL, the key
 * from the environment, record or replay), the skills with test cases gathered, every run made
 * (src/evaluate/), `benchmark.json` written, and the report: a table per skill on stdout (or the
 * benchmark with `--json`), and why the run failed on stderr. The key is read here and handed to
 * the client only: it is never printed, stored or put in an error.
 */
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { formatTable } from "../../cli-output/table.ts";
import { colourDiagnostic } from "../../cli-output/colour.ts";
import { DEFAULT_CATALOG_SETTINGS } from "../../config/catalog-settings.ts";
import { formatDiagnostic } from "../../diagnostics.ts";
import { ANTHROPIC_WIRE } from "../../evaluate/anthropic-wire.ts";
import { type Benchmark, failures, type SkillBenchmark } from "../../evaluate/benchmark.ts";
import { EVAL_CLIENT_NAME } from "../../evaluate/catalog-session.ts";
import { ModelClient } from "../../evaluate/model-client.ts";
import { runSkill, type SkillUnderEval } from "../../evaluate/model-runs.ts";
import { OPENAI_WIRE } from "../../evaluate/openai-wire.ts";
import { skillVersion } from "../../evaluate/skill-version.ts";
import type { Provider, Wire } from "../../evaluate/wire.ts";
import type { LoadResult } from "../../load/load-skills.ts";
import { evalPathsOf, readEvalsFile } from "../../storage/eval-files.ts";
import { evalWorkspace } from "../../config/eval-settings.ts";
import { nextIteration } from "../../storage/eval-workspace.ts";
import { describeFsError } from "../../storage/fs-errors.ts";
import { VERSION } from "../../version.ts";
import { visibleLine } from "../../visible-text.ts";
import { type CommandContext, EXIT_FAILURE, EXIT_OK, json } from "./command.ts";
import { UsageError } from "./options.ts";

export interface ModelEvalFlags {
  model: string;
  provider?: Provider;
  "base-url"?: string;
  "api-key-env"?: string;
  "grader-model"?: string;
  runs: number;
  threshold: number;
  "max-turns": number;
  timeout: number;
  record?: string;
  replay?: string;
  client?: string;
  workspace?: string;
}

const WIRES: Record<Provider, Wire> = { openai: OPENAI_WIRE, anthropic: ANTHROPIC_WIRE };

/**
 * `--provider`, else a `claude…` model is Anthropic's, else Anthropic when only its key is set,
 * else OpenAI's wire (which local servers speak too).
 */
export function providerOf(flags: Pick<ModelEvalFlags, "provider" | "model">, env: NodeJS.ProcessEnv): Provider {
  if (flags.provider !== undefined) return flags.provider;
  if (/^claude/i.test(flags.model)) return "anthropic";
  if (!env.OPENAI_API_KEY && env.ANTHROPIC_API_KEY) return "anthropic";
  return "openai";
}

function modelClient(flags: ModelEvalFlags, cwd: string, env: NodeJS.ProcessEnv): ModelClient {
  if (flags.record !== undefined && flags.replay !== undefined)
    throw new UsageError("--record and --replay cannot be combined: record once, then replay");
  const wire = WIRES[providerOf(flags, env)];
  const variable = flags["api-key-env"] ?? wire.keyVariable;
  const key = env[variable] || undefined;
  // A local server (--base-url) may need no key; the provider's own endpoint always does. A replay never sends one.
  if (key === undefined && flags["base-url"] === undefined && flags.replay === undefined)
    throw new UsageError(
      `no key for ${wire.provider}: set ${variable} in the environment (or name another variable with --api-key-env)`,
    );
  return new ModelClient({
    wire,
    baseUrl: flags["base-url"] ?? wire.defaultBaseUrl,
    key: flags.replay === undefined ? key : undefined,
    timeoutMs: Math.round(flags.timeout * 1000),
    ...(flags.record !== undefined && { record: resolve(cwd, flags.record) }),
    ...(flags.replay !== undefined && { replay: resolve(cwd, flags.replay) }),
  });
}

const percent = (r: number | null | undefined) => (r === null || r === undefined ? "-" : `${Math.round(r * 100)}%`);
const signed = (r: number | null | undefined) =>
  r === null || r === undefined ? "-" : `${r > 0 ? "+" : r < 0 ? "−" : "±"}${Math.round(Math.abs(r) * 100)}`;

function textReport(skills: readonly SkillBenchmark[], ctx: CommandContext): string {
  const rows = [
    ["SKILL", "WITH", "WITHOUT", "DELTA", "TRIGGER RATE", "RUNS", "VERDICT"],
    ...skills.map((s) => [
      s.skill_name,
      percent(s.run_summary.with_skill?.pass_rate.mean),
      percent(s.run_summary.without_skill?.pass_rate.mean),
      signed(s.run_summary.delta?.pass_rate),
      percent(s.trigger_rate),
      String(s.runs.length),
      s.verdict,
    ]),
  ];
  return formatTable(rows, { ...(ctx.columns !== undefined && { maxWidth: ctx.columns }), header: ctx.colours.bold });
}

/** The served skills with test cases (the `named` only, when any), and what is wrong with their files. */
function skillsUnderEval(ctx: CommandContext, loaded: LoadResult, named: ReadonlySet<string>): SkillUnderEval[] {
  const skills: SkillUnderEval[] = [];
  for (const c of loaded.registry.served()) {
    if (named.size > 0 && !named.has(c.skill.id)) continue;
    const read = readEvalsFile(evalPathsOf(c.path).evals);
    if (read === undefined) continue;
    for (const d of read.diagnostics)
      ctx.err(`${colourDiagnostic(formatDiagnostic(d, { display: loaded.display }), ctx.colours)}\n`);
    if (read.value === undefined || read.value.evals.length === 0) continue;
    skills.push({
      id: c.skill.id,
      layer: c.layer.name,
      digest: skillVersion(c),
      root: dirname(c.path),
      evals: read.value.evals,
    });
  }
  return skills;
}

/** The folder runs go in: `--workspace`, else `eval.workspace`, else eval-workspace/ in the project root. */
function workspaceOf(ctx: CommandContext, loaded: LoadResult, flag: string | undefined): string {
  if (flag !== undefined) return resolve(ctx.cwd, flag);
  return evalWorkspace(loaded.config.eval, ctx.cwd).dir;
}

export async function runModelEval(ctx: CommandContext, loaded: LoadResult, flags: ModelEvalFlags): Promise<number> {
  const models = modelClient(flags, ctx.cwd, process.env);
  const skills = skillsUnderEval(ctx, loaded, new Set(ctx.args));
  if (skills.length === 0) {
    ctx.err(
      "no skill has test cases: add evals/evals.json to a skill folder, or <name>.evals.json beside a skill file (docs/eval.md)\n",
    );
    return EXIT_FAILURE;
  }
  const workspace = workspaceOf(ctx, loaded, flags.workspace);
  let iteration: string;
  try {
    iteration = nextIteration(workspace);
  } catch (error) {
    ctx.err(`cannot write the results to ${visibleLine(loaded.display(workspace))}: ${describeFsError(error)}\n`);
    return EXIT_FAILURE;
  }
  // No --client: every skill a model may use, through the catalog tools (as the routing mode ranks by default).
  const configured = loaded.config.catalog ?? DEFAULT_CATALOG_SETTINGS;
  const catalog = flags.client === undefined ? { ...configured, mode: "on" as const } : configured;
  const clientName = flags.client ?? EVAL_CLIENT_NAME;
  const benchmark: Benchmark = {
    metadata: {
      tool: "skill-central",
      version: VERSION,
      timestamp: new Date().toISOString(),
      model: flags.model,
      provider: models.provider,
      client: clientName,
      runs_per_configuration: flags.runs,
      threshold: flags.threshold,
      replayed: models.replaying,
      ...(flags["grader-model"] !== undefined && { grader_model: flags["grader-model"] }),
    },
    skills: [],
  };
  for (const skill of skills)
    benchmark.skills.push(
      await runSkill(
        {
          registry: loaded.registry,
          catalog,
          clientName,
          model: flags.model,
          models,
          ...(flags["grader-model"] !== undefined && { graderModel: flags["grader-model"] }),
          runs: flags.runs,
          maxTurns: flags["max-turns"],
          iteration,
          progress: (line) => ctx.err(`${visibleLine(line)}\n`),
        },
        skill,
      ),
    );
  const file = join(iteration, "benchmark.json");
  try {
    writeFileSync(file, `${JSON.stringify(benchmark, null, 2)}\n`, { flag: "wx" });
  } catch (error) {
    ctx.err(`cannot write ${visibleLine(loaded.display(file))}: ${describeFsError(error)}\n`);
    return EXIT_FAILURE;
  }
  ctx.err(`wrote ${visibleLine(loaded.display(file))}\n`);
  if (ctx.json) json(ctx, benchmark);
  else ctx.out(textReport(benchmark.skills, ctx));
  let failed = false;
  for (const skill of benchmark.skills)
    for (const why of failures(skill, flags.threshold)) {
      failed = true;
      ctx.err(`${visibleLine(skill.skill_name)}: ${why}\n`);
    }
  return failed ? EXIT_FAILURE : EXIT_OK;
}
