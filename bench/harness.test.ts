/**
 * The harness's own tests (run with `bun test bench/`; `bun test` covers test/ only). The point
 * of the checks is that a wrong answer cannot pass, so most of these feed wrong answers in.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCorpus, type CorpusInfo } from "./corpus.ts";
import { parseLoadTiming } from "./lib/load-timing.ts";
import { parseOptions, UsageError } from "./lib/options.ts";
import { anyFailed, goalResults, renderReport, type ReportInput, type RunMeta } from "./lib/report.ts";
import { figureKey, runSession, type SessionSample } from "./lib/session.ts";
import { quantile, summarize } from "./lib/stats.ts";
import { corpusWorkload, floorWorkload, type OpName, type Workload } from "./lib/workload.ts";

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const check = (w: Workload, op: OpName, result: unknown) => w.ops[op].check(result);
const promptResult = (text: string) => ({ messages: [{ role: "user", content: { type: "text", text } }] });
const toolResult = (text: string, isError = false) => ({ content: [{ type: "text", text }], ...(isError && { isError }) });

describe("stats", () => {
  test("quantiles interpolate between ranks and ignore NaN", () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10, 20, 30, 40, 50], 0.25)).toBe(20);
    expect(summarize([3, Number.NaN, 1, 2])).toEqual({ n: 3, median: 2, p25: 1.5, p75: 2.5, min: 1, max: 3 });
    expect(summarize([]).n).toBe(0);
  });
});

describe("load timing", () => {
  test("reads the phases, the files parsed and the milestones as the server prints them", () => {
    const stderr = [
      "noise",
      "[skill-central] loaded 950 ids in 110.4 ms (config 54.3 ms, discover 8.3 ms, read+parse 32.9 ms, resolve 14.9 ms; 0 files parsed)",
      "[skill-central] since process start: mcp command 93.0 ms, index opened 143.4 ms, first load done 258.9 ms (cpu 82.8 ms)",
      "[skill-central] reloaded in 12.0 ms: 950 skills",
    ].join("\n");
    expect(parseLoadTiming(stderr)).toEqual({
      ids: 950,
      totalMs: 110.4,
      phases: { config: 54.3, discover: 8.3, "read+parse": 32.9, resolve: 14.9 },
      filesParsed: 0,
      sinceStart: { "mcp command": 93.0, "index opened": 143.4, "first load done": 258.9, cpu: 82.8 },
    });
  });

  test("an older server's line (no counts, no milestones) still parses; anything else is no timing", () => {
    const line = "[skill-central] loaded 950 ids in 120.5 ms (config 6.1 ms, read+parse 96.4 ms, resolve 5.7 ms)\n";
    expect(parseLoadTiming(`noise\n${line}`)).toEqual({ ids: 950, totalMs: 120.5, phases: { config: 6.1, "read+parse": 96.4, resolve: 5.7 }, sinceStart: {} });
    expect(parseLoadTiming("[skill-central] something else")).toBeUndefined();
  });
});

describe("options", () => {
  test("defaults to all three sizes, --quick to a smaller smoke run", () => {
    expect(parseOptions([])).toMatchObject({ sizes: [100, 1000, 10000], runs: 15, quick: false, debugTiming: false });
    expect(parseOptions(["--quick"])).toMatchObject({ sizes: [100, 1000], runs: 3, quick: true });
    expect(parseOptions(["--sizes", "1000,100", "--runs=4", "--debug-timing", "--targets", "floor,binary"])).toMatchObject({
      sizes: [100, 1000],
      runs: 4,
      debugTiming: true,
      targets: ["binary", "floor"],
    });
    expect(parseOptions(["--help"])).toBeNull();
  });

  test("rejects unknown flags and bad values", () => {
    expect(() => parseOptions(["--size", "10"])).toThrow(UsageError);
    expect(() => parseOptions(["--runs", "0"])).toThrow(UsageError);
    expect(() => parseOptions(["--sizes", "5"])).toThrow(UsageError);
    expect(() => parseOptions(["--targets", "peer"])).toThrow(UsageError);
  });
});

describe("corpus checks reject wrong answers", async () => {
  const info: CorpusInfo = await generateCorpus(tempDir("sc-bench-corpus-"), 200, 3);
  const w = corpusWorkload(info);
  const promptWinner = info.overrides.find((o) => o.type === "prompt");
  const prompts = (extra: Array<{ name: string; description?: string }> = []) => [
    ...Array.from({ length: info.effective.prompts }, (_, i) => {
      const winner = info.overrides.filter((o) => o.type === "prompt")[i];
      return winner ? { name: winner.id, description: winner.description } : { name: `p-${i}` };
    }),
    ...extra,
  ];

  test("prompts/list: exact count (skills:compose not counted) and override winners", () => {
    expect(w.checkPrompts(prompts())).toBeNull();
    expect(w.checkPrompts(prompts([{ name: "skills:compose" }]))).toBeNull();
    expect(w.checkPrompts(prompts().slice(1))).toContain("want");
    expect(promptWinner).toBeDefined();
    const loser = prompts().map((p) => (p.name === promptWinner?.id ? { ...p, description: "the lower layer's" } : p));
    expect(w.checkPrompts(loser)).toContain(`override ${promptWinner?.id}`);
  });

  test("prompts/get: the rendered text must match exactly", () => {
    expect(check(w, "prompts/get", promptResult(info.samplePrompt.expectedText))).toBeNull();
    expect(check(w, "prompts/get", promptResult(`${info.samplePrompt.expectedText} `))).toContain("differs");
    expect(check(w, "prompts/get", { messages: [] })).toContain("expected 1 message");
  });

  test("skills:compose: one headed section per matching prompt", () => {
    const section = (i: number) => `## skill-${String(i).padStart(5, "0")}\nbody with ## Task inside`;
    const sections = (n: number) => Array.from({ length: n }, (_, i) => section(i)).join("\n\n---\n\n");
    const want = info.tagQuery.expectedPrompts;
    expect(check(w, "skills:compose", promptResult(sections(want)))).toBeNull();
    expect(check(w, "skills:compose", promptResult(sections(want - 1)))).toContain(`want ${want}`);
    expect(check(w, "skills:compose", promptResult(`${sections(want - 1)}\n\n---\n\nno heading`))).toContain("lack");
  });

  test("tools/call: valid text exact and not isError; invalid must be isError naming the property", () => {
    const { expectedText, missingProperty } = info.sampleTool;
    expect(check(w, "tools/call valid", toolResult(expectedText))).toBeNull();
    expect(check(w, "tools/call valid", toolResult(expectedText, true))).toContain("isError");
    expect(check(w, "tools/call valid", toolResult("other"))).toContain("differs");
    const missing = `Missing required argument: "${missingProperty}"`;
    expect(check(w, "tools/call invalid", toolResult(missing, true))).toBeNull();
    expect(check(w, "tools/call invalid", toolResult(missing))).toContain("not isError");
    expect(check(w, "tools/call invalid", toolResult("Invalid arguments", true))).toContain("lacks");
  });

  test("tools/list: exact count", () => {
    const tools = Array.from({ length: info.effective.tools + 1 }, (_, i) => ({ name: `t-${i}`, inputSchema: { type: "object" } }));
    expect(check(w, "tools/list", tools)).toContain(`want ${info.effective.tools}`);
  });
});

// ---------------------------------------------------------------------------

function meta(): RunMeta {
  return {
    date: "2000-01-01", command: "bun bench/run.ts", commit: "x", bun: "1", sdk: "1", machine: "m", loadBefore: "0", loadAfter: "0",
    binaryHow: "b", floorHow: "f", runs: 1, reps: 2, calls: 1, callSeconds: 1, noWatch: {}, elapsedSeconds: 1,
  };
}

function sample(figures: Record<string, number>, problems: string[] = []): SessionSample {
  return { figures, problems };
}

describe("report", async () => {
  const info = await generateCorpus(tempDir("sc-bench-report-"), 1000, 1);
  const floor = sample({ [figureKey.init]: 50, [figureKey.firstList]: 55, [figureKey.throughput]: 5000, [figureKey.rss]: 45 });
  const input = (binary: SessionSample): ReportInput => ({
    meta: meta(),
    corpora: [info],
    targets: ["binary", "floor"],
    samples: (_n, t) => [t === "floor" ? floor : binary],
  });

  test("targets: PASS within the limit, MISS outside it", () => {
    const good = sample({ [figureKey.init]: 70, [figureKey.firstList]: 100, [figureKey.throughput]: 4600, [figureKey.rss]: 59 });
    expect(goalResults(input(good)).map((r) => r.verdict)).toEqual(["PASS", "PASS", "PASS", "PASS"]);
    const slow = sample({ [figureKey.init]: 80, [figureKey.firstList]: 111, [figureKey.throughput]: 4400, [figureKey.rss]: 61 });
    expect(goalResults(input(slow)).map((r) => r.verdict)).toEqual(["MISS", "MISS", "MISS", "MISS"]);
  });

  test("a target with a failed check shows FAILED instead of its numbers", () => {
    const broken = sample({ [figureKey.init]: 1, [figureKey.firstList]: 1, [figureKey.throughput]: 1e6, [figureKey.rss]: 1 }, ["prompts/get: rendered text differs"]);
    const markdown = renderReport(input(broken));
    expect(anyFailed(input(broken))).toBe(true);
    expect(goalResults(input(broken)).every((r) => r.verdict === "FAILED")).toBe(true);
    expect(markdown).toContain("binary **FAILED**");
    expect(markdown).toContain("rendered text differs");
    expect(markdown).not.toContain("1,000,000");
  });
});

// ---------------------------------------------------------------------------

describe("sessions against real servers", () => {
  const plan = { reps: 2, calls: 20, callSeconds: 1 };
  const home = tempDir("sc-bench-home-");

  test("the floor answers every check and yields every figure", async () => {
    const floor = join(import.meta.dir, "floor", "server.ts");
    const result = await runSession({ command: process.execPath, args: [floor], cwd: home, home }, floorWorkload(), plan);
    expect(result.problems).toEqual([]);
    for (const key of [figureKey.init, figureKey.firstList, figureKey.throughput, figureKey.op("skills:compose", "warm")]) {
      expect(result.figures[key]).toBeGreaterThan(0);
    }
    if (process.platform === "linux") expect(result.figures[figureKey.rss]).toBeGreaterThan(1);
  });

  test("a server whose answers differ from the corpus is caught", async () => {
    const dir = tempDir("sc-bench-wrong-");
    const info = await generateCorpus(dir, 100, 5);
    const wrong: CorpusInfo = { ...info, effective: { ...info.effective, prompts: info.effective.prompts + 1 } };
    const cli = join(import.meta.dir, "..", "src", "cli.ts");
    const result = await runSession({ command: process.execPath, args: [cli, "mcp"], cwd: dir, home }, corpusWorkload(wrong), plan);
    expect(result.problems).toContain(
      `first prompts/list: prompts/list (without skills:compose): got ${info.effective.prompts}, want ${wrong.effective.prompts}`,
    );
  });

  test("a server that cannot start is a failure, not a hang", async () => {
    const result = await runSession({ command: process.execPath, args: ["-e", "process.exit(3)"], cwd: home, home }, floorWorkload(), plan);
    expect(result.problems[0]).toStartWith("session aborted");
  });
});
