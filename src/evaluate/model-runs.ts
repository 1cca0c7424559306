/**
 * The model mode of `skill-central eval`: each eval of a skill's `evals.json` run `runs` times
 * with the skill in the catalog and `runs` times without it (the baseline: the same catalog less
 * that skill), each graded, written in the pinned results layout (docs/eval.md):
 * `<iteration>/<skill>/eval-<id>/with_skill|without_skill/run-<k>/` holding `outputs/`,
 * `transcript.json`, `grading.json` and `timing.json`; the caller writes `benchmark.json`. An
 * eval's input files are copied into a fresh working folder per run and given to the model in the
 * prompt (it has no file tools); the folder is removed after.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import type { CatalogSettings } from "../config/catalog-settings.ts";
import { buildRegistry, type Registry } from "../registry/registry.ts";
import type { EvalCase } from "../storage/eval-files.ts";
import { converse, type Conversation } from "./agent-loop.ts";
import { grade, type Grading, type ModelGrader } from "./assertions.ts";
import { type Configuration, type RunRecord, type SkillBenchmark, skillBenchmark } from "./benchmark.ts";
import { openCatalogSession, type Trigger } from "./catalog-session.ts";
import { isObject } from "./conversation.ts";
import { type ExchangeScope, type ModelClient, safeName } from "./model-client.ts";
import { writeOutputs } from "./outputs.ts";

export interface SkillUnderEval {
  id: string;
  layer: string;
  digest: string;
  /** Where the eval's `files` and schema files are named from: the skill folder, or the skill file's folder. */
  root: string;
  evals: readonly EvalCase[];
}

export interface ModelRunOptions {
  registry: Registry;
  catalog: CatalogSettings;
  /** The `clientInfo.name` the in-process client gives. */
  clientName: string;
  model: string;
  models: ModelClient;
  graderModel?: string;
  runs: number;
  maxTurns: number;
  iteration: string;
  progress: (line: string) => void;
}

/** An input file larger than this is named to the model, not pasted. */
const MAX_INPUT_CHARS = 64 * 1024;

const GRADER_SYSTEM =
  'You grade one assertion about an answer. Reply with only a JSON object: {"passed": true or false, "evidence": "a short quote or reason"}.';

/** The eval's prompt, with its input files copied into `work` and shown to the model. */
function promptWithFiles(evalCase: EvalCase, root: string, work: string): string {
  const files = evalCase.files ?? [];
  if (files.length === 0) return evalCase.prompt;
  const parts = [evalCase.prompt, "", "Input files:"];
  for (const name of files) {
    const from = join(root, name);
    if (isAbsolute(name) || relative(root, from).startsWith("..")) continue;
    const to = join(work, name);
    let text: string;
    try {
      cpSync(from, to, { recursive: true });
      text = readFileSync(to, "utf8");
    } catch {
      parts.push(`- ${name} (missing)`);
      continue;
    }
    parts.push(
      text.length > MAX_INPUT_CHARS
        ? `- ${name} (${text.length} characters: too large to show)`
        : `\n${name}:\n\`\`\`\n${text}\n\`\`\``,
    );
  }
  return parts.join("\n");
}

function graderOf(options: ModelRunOptions, scope: ExchangeScope): ModelGrader | undefined {
  const graderModel = options.graderModel;
  if (graderModel === undefined) return undefined;
  return async (assertion, answer) => {
    const turn = await options.models.turn(
      {
        model: graderModel,
        system: GRADER_SYSTEM,
        messages: [{ role: "user", text: `Assertion: ${assertion}\n\nAnswer:\n${answer}` }],
        tools: [],
      },
      { ...scope, label: `${scope.label} (grader)` },
    );
    const json = /\{[\s\S]*\}/.exec(turn.text)?.[0];
    let verdict: unknown;
    try {
      verdict = json === undefined ? undefined : JSON.parse(json);
    } catch {
      verdict = undefined;
    }
    if (!isObject(verdict) || typeof verdict.passed !== "boolean")
      throw new Error('malformed answer: the grader did not reply with {"passed": true|false}');
    return { passed: verdict.passed, evidence: typeof verdict.evidence === "string" ? verdict.evidence : "" };
  };
}

interface RunOutcome {
  conversation?: Conversation;
  grading: Grading;
  triggers: Trigger[];
  durationMs: number;
  error: string | null;
}

async function runOnce(
  options: ModelRunOptions,
  skill: SkillUnderEval,
  registry: Registry,
  evalCase: EvalCase,
  runDir: string,
  scope: ExchangeScope,
): Promise<RunOutcome> {
  const outputs = join(runDir, "outputs");
  mkdirSync(outputs, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "skill-central-eval-"));
  const started = performance.now();
  const session = await openCatalogSession(registry, options.catalog, options.clientName);
  try {
    const prompt = promptWithFiles(evalCase, skill.root, work);
    const conversation = await converse(options.models, options.model, session, prompt, {
      maxTurns: options.maxTurns,
      scope,
    });
    writeOutputs(conversation.answer, outputs);
    const grading = await grade(
      evalCase.assertions,
      { text: conversation.answer, outputs, root: skill.root },
      graderOf(options, scope),
    );
    return {
      conversation,
      grading,
      triggers: [...session.triggers],
      durationMs: performance.now() - started,
      error: null,
    };
  } catch (error) {
    const grading = await grade([], { text: "", outputs, root: skill.root });
    return {
      grading,
      triggers: [...session.triggers],
      durationMs: performance.now() - started,
      error: (error as Error).message,
    };
  } finally {
    await session.close();
    rmSync(work, { recursive: true, force: true });
  }
}

const write = (file: string, value: unknown) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** Runs every eval of one skill with and without it; `needsRecording` (a replay without its recordings) runs nothing. */
export async function runSkill(options: ModelRunOptions, skill: SkillUnderEval): Promise<SkillBenchmark> {
  if (!options.models.hasRecordings(skill.id, skill.digest)) return skillBenchmark(skill, [], true);
  const without = buildRegistry(
    options.registry.layers,
    options.registry.served().filter((c) => c.skill.id !== skill.id),
  ).registry;
  const runs: RunRecord[] = [];
  for (const evalCase of skill.evals) {
    for (const configuration of ["with_skill", "without_skill"] as Configuration[]) {
      for (let k = 1; k <= options.runs; k++) {
        const runDir = join(
          options.iteration,
          safeName(skill.id),
          `eval-${safeName(String(evalCase.id))}`,
          configuration,
          `run-${k}`,
        );
        mkdirSync(runDir, { recursive: true });
        const label = `${skill.id} eval ${evalCase.id} ${configuration} run ${k}`;
        const scope = { skill: skill.id, digest: skill.digest, label };
        const outcome = await runOnce(
          options,
          skill,
          configuration === "with_skill" ? options.registry : without,
          evalCase,
          runDir,
          scope,
        );
        const c = outcome.conversation;
        const inputTokens = c?.inputTokens ?? 0;
        const outputTokens = c?.outputTokens ?? 0;
        const seconds = Math.round(outcome.durationMs) / 1000;
        const triggered = outcome.triggers.some((t) => t.skill === skill.id);
        write(join(runDir, "transcript.json"), {
          prompt: evalCase.prompt,
          messages: c?.messages ?? [],
          answer: c?.answer ?? "",
          stopped: outcome.error !== null ? "error" : c?.stoppedAtMaxTurns ? "max-turns" : "answered",
          error: outcome.error,
        });
        write(join(runDir, "grading.json"), { ...outcome.grading, triggered, triggers: outcome.triggers });
        write(join(runDir, "timing.json"), {
          total_tokens: inputTokens + outputTokens,
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          duration_ms: Math.round(outcome.durationMs),
          total_duration_seconds: seconds,
          turns: c?.turns ?? 0,
        });
        const { summary } = outcome.grading;
        runs.push({
          eval_id: evalCase.id,
          configuration,
          run_number: k,
          // Exact here: the means and the delta are worked from it (grading.json rounds for people).
          pass_rate: summary.total === 0 ? 0 : summary.passed / summary.total,
          passed: summary.passed,
          total: summary.total,
          triggered,
          time_seconds: seconds,
          tokens: inputTokens + outputTokens,
          error: outcome.error,
        });
        options.progress(
          `${label}: ${outcome.error ?? `${summary.passed}/${summary.total} passed${configuration === "with_skill" ? (triggered ? ", triggered" : ", not triggered") : ""}`}`,
        );
      }
    }
  }
  return skillBenchmark(skill, runs, false);
}
