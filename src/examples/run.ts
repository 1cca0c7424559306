import { isAbsolute, join } from "node:path";
import type { SourcePosition } from "../diagnostics.ts";
import { buildRegistry, type Candidate, type Registry } from "../registry/registry.ts";
import { parseYamlDocument, type Locator } from "../storage/parse-document.ts";
import { readSkillFile } from "../storage/read.ts";
import { invokeSkill } from "../invoke/invoke.ts";
import { judge, type FailureKind, type Verdict } from "./verdict.ts";

/** One inline example, run. */
export interface ExampleResult {
  id: string;
  /** 1-based position among the skill's examples, as messages say it ("example 2"). */
  number: number;
  /** The skill's file, as the loader names it. */
  source: string;
  /** Where the example is written; looked up only for failures. */
  position?: SourcePosition;
  arguments: Record<string, unknown>;
  pass: boolean;
  failure?: FailureKind;
  reason?: string;
  expected?: string;
  actual?: string;
  missing?: string[];
}

export interface RunExamplesOptions {
  /** Project root: sources relative to it are resolved against it to find positions. */
  cwd: string;
  /** Locators the caller already has (e.g. `validate` parsed the files), by source. */
  locators?: ReadonlyMap<string, Locator>;
}

/** A shadowed or conflicted candidate is run on its own, as the server would serve it if it won. */
const soloRegistries = new WeakMap<Candidate, Registry>();
function registryFor(registry: Registry, candidate: Candidate): Registry {
  if (registry.get(candidate.skill.id) === candidate) return registry;
  let solo = soloRegistries.get(candidate);
  if (!solo) {
    solo = buildRegistry([candidate.layer], [candidate]).registry;
    soloRegistries.set(candidate, solo);
  }
  return solo;
}

async function locatorFor(source: string, cwd: string): Promise<Locator | undefined> {
  const read = await readSkillFile(isAbsolute(source) ? source : join(cwd, source));
  if (!read.ok) return undefined;
  const parsed = parseYamlDocument(read.source);
  return parsed.ok ? parsed.doc.locate : undefined;
}

/**
 * Runs every inline example of `candidates` through the same calls the server answers
 * (`prompts/get` for prompts, `tools/call` for tools), in candidate then file order.
 */
export async function runExamples(registry: Registry, candidates: readonly Candidate[], options: RunExamplesOptions): Promise<ExampleResult[]> {
  const results: ExampleResult[] = [];
  const failedSources = new Set<string>();
  for (const candidate of candidates) {
    const target = registryFor(registry, candidate);
    candidate.skill.examples.forEach((example, index) => {
      const args = { ...(example.arguments ?? {}) };
      const invocation = invokeSkill(target, candidate.skill.id, args);
      const verdict: Verdict = judge(example, invocation.ok ? invocation : { ok: false, message: invocation.error.message });
      const base = { id: candidate.skill.id, number: index + 1, source: candidate.source, arguments: args };
      if (verdict.pass) {
        results.push({ ...base, pass: true });
      } else {
        const { pass: _, ...detail } = verdict;
        results.push({ ...base, pass: false, ...detail });
        failedSources.add(candidate.source);
      }
    });
  }
  if (failedSources.size > 0) {
    const locators = new Map(options.locators);
    await Promise.all(
      [...failedSources].filter((s) => !locators.has(s)).map(async (source) => {
        const locate = await locatorFor(source, options.cwd);
        if (locate) locators.set(source, locate);
      }),
    );
    for (const result of results) {
      if (result.pass) continue;
      const position = locators.get(result.source)?.(["examples", result.number - 1]);
      if (position) result.position = position;
    }
  }
  return results;
}
