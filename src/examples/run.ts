/** Running a skill's inline examples through the server's own prompts/get and tools/call code. */
import { sep } from "node:path";
import type { SourcePosition } from "../diagnostics.ts";
import { invokeSkill } from "../invoke/invoke.ts";
import { buildRegistry, type Candidate, type Registry } from "../registry/registry.ts";
import type { Locator } from "../storage/parse-document.ts";
import { judge, type FailureKind, type Verdict } from "./judge.ts";

/** One inline example, run. */
export interface ExampleResult {
  id: string;
  /** 1-based position among the skill's examples, as messages say it ("example 2"). */
  number: number;
  /** The file the example is written in (the skill's file, or a folder's examples file), absolute. */
  path: string;
  /** The same, as people read it. */
  source: string;
  /** Where the example is written, when the load kept the file's locator. */
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
  /** Where each file's fields are written, by absolute path (from the load's records). */
  locate?: (path: string) => Locator | undefined;
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

/** The file a candidate's examples are written in: its skill file, or a folder's examples file. */
function writtenIn(candidate: Candidate): { path: string; source: string } {
  const file = candidate.skill.examplesFile;
  if (!file) return { path: candidate.path, source: candidate.source };
  const cut = (p: string) => p.slice(0, Math.max(p.lastIndexOf("/"), p.lastIndexOf(sep)) + 1);
  return { path: cut(candidate.path) + file.path.split("/").join(sep), source: cut(candidate.source) + file.path };
}

/**
 * Runs every inline example of `candidates` through the same calls the server answers
 * (`prompts/get` for prompts, `tools/call` for tools), in candidate then file order.
 */
export async function runExamples(
  registry: Registry,
  candidates: readonly Candidate[],
  options: RunExamplesOptions = {},
): Promise<ExampleResult[]> {
  const results: ExampleResult[] = [];
  for (const candidate of candidates) {
    if (candidate.skill.exampleCount === 0) continue;
    const target = registryFor(registry, candidate);
    for (const [index, example] of candidate.content.read().examples.entries()) {
      const args = { ...(example.arguments ?? {}) };
      const invocation = await invokeSkill(target, candidate.skill.id, args);
      const verdict: Verdict = judge(
        example,
        invocation.ok ? invocation : { ok: false, message: invocation.error.message },
      );
      const base = { id: candidate.skill.id, number: index + 1, ...writtenIn(candidate), arguments: args };
      if (verdict.pass) {
        results.push({ ...base, pass: true });
        continue;
      }
      const { pass: _, ...detail } = verdict;
      // A folder's examples are in its examples file, whose positions the load does not keep.
      const position = candidate.skill.examplesFile
        ? undefined
        : options.locate?.(candidate.path)?.(["examples", index]);
      results.push({ ...base, pass: false, ...detail, ...(position && { position }) });
    }
  }
  return results;
}
