/**
 * The harness's own tests (run with `bun test bench/`; `bun test` covers test/ only). The point
 * of the checks is that a wrong answer cannot pass, so most of these feed wrong answers in.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCorpus, type CorpusInfo } from "./corpus.ts";
import { waitUntilSettled } from "./lib/corpora.ts";
import { Homes, INDEX_DIR, indexIn } from "./lib/homes.ts";
import { parseLoadTiming } from "./lib/load-timing.ts";
import { parseOptions, UsageError } from "./lib/options.ts";
import {
  anyFailed,
  goalResults,
  renderReport,
  type BenchSample,
  type ReportInput,
  type RunMeta,
} from "./lib/report.ts";
import { closeAllSessions, figureKey, openSessionPids, runSession, type SessionPlan } from "./lib/session.ts";
import { quantile, summarize } from "./lib/stats.ts";
import { corpusWorkload, floorEchoText, floorWorkload, type OpName, type Workload } from "./lib/workload.ts";

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
const toolResult = (text: string, isError = false) => ({
  content: [{ type: "text", text }],
  ...(isError && { isError }),
});

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
    expect(parseLoadTiming(`noise\n${line}`)).toEqual({
      ids: 950,
      totalMs: 120.5,
      phases: { config: 6.1, "read+parse": 96.4, resolve: 5.7 },
      sinceStart: {},
    });
    expect(parseLoadTiming("[skill-central] something else")).toBeUndefined();
  });
});

describe("options", () => {
  test("--store: each HOME's file by default, or one PostgreSQL cluster; anything else is a usage error", () => {
    expect(parseOptions([])?.store).toBe("file");
    expect(parseOptions(["--store", "postgres"])?.store).toBe("postgres");
    expect(() => parseOptions(["--store", "mysql"])).toThrow(UsageError);
  });

  test("defaults to all three sizes, --quick to a smaller smoke run", () => {
    expect(parseOptions([])).toMatchObject({
      sizes: [100, 1000, 10000],
      runs: 15,
      quick: false,
      debugTiming: false,
      modes: ["cold", "warm"],
      firstCalls: 3000,
    });
    expect(parseOptions(["--quick"])).toMatchObject({
      sizes: [100, 1000],
      runs: 3,
      quick: true,
      modes: ["cold", "warm"],
      firstCalls: 3000,
    });
    expect(parseOptions(["--modes", "warm"])).toMatchObject({ modes: ["warm"] });
    expect(parseOptions(["--modes=warm,cold", "--first-calls", "500"])).toMatchObject({
      modes: ["cold", "warm"],
      firstCalls: 500,
    });
    expect(
      parseOptions(["--sizes", "1000,100", "--runs=4", "--debug-timing", "--targets", "floor,binary"]),
    ).toMatchObject({
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
    expect(() => parseOptions(["--modes", "hot"])).toThrow(UsageError);
    expect(() => parseOptions(["--first-calls", "0"])).toThrow(UsageError);
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

  test("the floor's echo is sent our sample tool's answer, and must echo it whole", () => {
    const floor = floorWorkload(info);
    expect(floorEchoText(info)).toHaveLength(info.sampleTool.expectedText.length);
    expect(check(floor, "tools/call valid", toolResult(info.sampleTool.expectedText))).toBeNull();
    expect(check(floor, "tools/call valid", toolResult(info.sampleTool.expectedText.slice(1)))).toContain("differs");
    expect(check(floor, "tools/call valid", toolResult("ping"))).toContain("differs");
  });

  test("tools/list: exact count", () => {
    const tools = Array.from({ length: info.effective.tools + 1 }, (_, i) => ({
      name: `t-${i}`,
      inputSchema: { type: "object" },
    }));
    expect(check(w, "tools/list", tools)).toContain(`want ${info.effective.tools}`);
  });
});

// ---------------------------------------------------------------------------

function meta(): RunMeta {
  return {
    date: "2000-01-01",
    command: "bun bench/run.ts",
    commit: "x",
    bun: "1",
    sdk: "1",
    machine: "m",
    loadBefore: "0",
    loadAfter: "0",
    binaryHow: "b",
    floorHow: "f",
    runs: 1,
    reps: 2,
    firstCalls: 3000,
    calls: 1,
    callSeconds: 1,
    rssAfterMs: 1000,
    noWatch: {},
    env: {},
    elapsedSeconds: 1,
  };
}

function sample(figures: Record<string, number>, problems: string[] = []): BenchSample {
  return { figures, problems };
}

describe("report", async () => {
  const info1k = await generateCorpus(tempDir("sc-bench-report-"), 1000, 1);
  const info10k: CorpusInfo = { ...info1k, n: 10000 };
  const floor = sample({
    [figureKey.firstList]: 50,
    [figureKey.firstCalls]: 4000,
    [figureKey.throughput]: 5000,
    [figureKey.rss]: 40,
  });
  const input = (cold: BenchSample, warm: BenchSample, corpora = [info1k, info10k]): ReportInput => ({
    meta: meta(),
    corpora,
    targets: ["binary", "floor"],
    modes: ["cold", "warm"],
    samples: (_n, t, mode) => [t === "floor" ? floor : mode === "cold" ? cold : warm],
  });
  const verdicts = (i: ReportInput) =>
    Object.fromEntries(goalResults(i).map((r) => [`${r.goal.figure} ${r.goal.size} ${r.goal.mode}`, r.verdict]));

  test("the issue's targets, cold and warm, at each size: ratios to the floor with their own limits", () => {
    // 1,000: list ≤ 2× cold, ≤ 1.5× warm; RSS ≤ 1.5×. 10,000: list ≤ 9× cold, ≤ 3.5× warm; RSS ≤ 2.5×. Throughput ≥ 0.9×.
    const cold = sample({
      [figureKey.firstList]: 100,
      [figureKey.rss]: 60,
      [figureKey.firstCalls]: 3600,
      [figureKey.throughput]: 1,
    });
    const warm = sample({
      [figureKey.firstList]: 75,
      [figureKey.rss]: 60,
      [figureKey.throughput]: 4500,
      [figureKey.firstCalls]: 1,
    });
    const v = verdicts(input(cold, warm));
    expect(v).toMatchObject({
      [`${figureKey.firstList} 1000 cold`]: "PASS",
      [`${figureKey.firstList} 1000 warm`]: "PASS",
      [`${figureKey.firstList} 10000 cold`]: "PASS",
      [`${figureKey.firstList} 10000 warm`]: "PASS",
      [`${figureKey.rss} 1000 cold`]: "PASS",
      [`${figureKey.rss} 10000 warm`]: "PASS",
      // Cold throughput is the first calls', warm the steady state's: the other figure (1 call/s) is not used.
      [`${figureKey.firstCalls} 1000 cold`]: "PASS",
      [`${figureKey.throughput} 1000 warm`]: "PASS",
    });
    expect(Object.keys(v)).toHaveLength(12); // 4 list + 4 RSS + 2 sizes × 2 modes of throughput (100 not in this run)
  });

  test("just over a limit is a MISS; the limits differ by size and mode", () => {
    const cold = sample({ [figureKey.firstList]: 101, [figureKey.rss]: 61, [figureKey.firstCalls]: 3599 });
    const warm = sample({ [figureKey.firstList]: 76, [figureKey.rss]: 61, [figureKey.throughput]: 4499 });
    const v = verdicts(input(cold, warm, [info1k]));
    expect(Object.values(v)).toEqual(["MISS", "MISS", "MISS", "MISS", "MISS", "MISS"]);
    // The same figures are well within 10,000's limits (3.5× and 9× the floor's list, 2.5× its RSS).
    const v10k = verdicts(input(cold, warm, [info10k]));
    expect(v10k[`${figureKey.firstList} 10000 warm`]).toBe("PASS");
    expect(v10k[`${figureKey.firstList} 10000 cold`]).toBe("PASS");
    expect(v10k[`${figureKey.rss} 10000 cold`]).toBe("PASS");
  });

  test("the report names every target with its mode and limit, and no old absolute limit", () => {
    const ok = sample({
      [figureKey.firstList]: 60,
      [figureKey.rss]: 50,
      [figureKey.firstCalls]: 4000,
      [figureKey.throughput]: 5000,
    });
    const markdown = renderReport(input(ok, ok));
    expect(markdown).toContain(
      "| spawn→complete prompts/list at 1,000 | warm | 60.0 / 50.0 ms | 1.20× | ≤ 1.5× floor | PASS |",
    );
    expect(markdown).toContain(
      "| spawn→complete prompts/list at 10,000 | cold | 60.0 / 50.0 ms | 1.20× | ≤ 9× floor | PASS |",
    );
    expect(markdown).toContain("| tools/call throughput, first 3,000 calls at 1,000 | cold |");
    expect(markdown).toContain(
      "| peak RSS 1 s after first list at 10,000 | warm | 50.0 / 40.0 MB | 1.25× | ≤ 2.5× floor | PASS |",
    );
    expect(markdown).toContain("#### 1,000 skill files, cold");
    expect(markdown).toContain("#### 1,000 skill files, warm");
    expect(markdown).toContain("Not measured in this run: sizes 100.");
    expect(markdown).not.toMatch(/≤ \d+ (MB|ms)/);
  });

  test("a mode with a failed check shows FAILED instead of its numbers; the other mode still counts", () => {
    const broken = sample(
      { [figureKey.firstList]: 1, [figureKey.rss]: 1, [figureKey.throughput]: 1e6, [figureKey.firstCalls]: 1e6 },
      ["prompts/get: rendered text differs"],
    );
    const ok = sample({
      [figureKey.firstList]: 60,
      [figureKey.rss]: 50,
      [figureKey.firstCalls]: 4000,
      [figureKey.throughput]: 5000,
    });
    const i = input(broken, ok, [info1k]);
    const markdown = renderReport(i);
    expect(anyFailed(i)).toBe(true);
    expect(
      goalResults(i)
        .filter((r) => r.goal.mode === "cold")
        .every((r) => r.verdict === "FAILED"),
    ).toBe(true);
    expect(
      goalResults(i)
        .filter((r) => r.goal.mode === "warm")
        .every((r) => r.verdict === "PASS"),
    ).toBe(true);
    expect(markdown).toContain("binary cold **FAILED**");
    expect(markdown).toContain("**binary cold at 1,000**");
    expect(markdown).toContain("rendered text differs");
    expect(markdown).not.toContain("1,000,000");
  });

  test("start-up index and load phases are reported per mode", () => {
    const index = (before: number, after: number) => ({
      before: { files: before, bytes: 0 },
      after: { files: after, bytes: after * 2 ** 20 },
    });
    const load = (filesParsed: number) => ({
      ids: 950,
      totalMs: 100,
      phases: { config: 1 },
      filesParsed,
      sinceStart: { "first load done": 200 },
    });
    const cold = { ...sample({}), index: index(0, 1), load: load(1000) };
    const warm = { ...sample({}), index: index(1, 1), load: load(0) };
    const markdown = renderReport({
      ...input(cold, warm, [info1k]),
      notes: ["binary warm at 1000: the warm-up session left no start-up index"],
    });
    expect(markdown).toContain("| 1,000 | binary | cold | 0 of 1 | 1 of 1 | 1.00 | 1,000 |");
    expect(markdown).toContain("| 1,000 | binary | warm | 1 of 1 | 1 of 1 | 1.00 | 0 |");
    expect(markdown).toContain("first load done (ms since start)");
    expect(markdown).toContain("## Notes\n\n- binary warm at 1000: the warm-up session left no start-up index");
    expect(markdown).not.toContain("sessions started without");
  });

  test("notes say where warm was not warm: no index at the start, none left, files parsed despite one", () => {
    const index = (before: number, after: number) => ({
      before: { files: before, bytes: 0 },
      after: { files: after, bytes: 0 },
    });
    const load = (filesParsed: number) => ({ ids: 950, totalMs: 100, phases: {}, filesParsed, sinceStart: {} });
    const cold = { ...sample({}), index: index(0, 0) };
    const warm = [
      { ...sample({}), index: index(0, 1), load: load(1000) },
      { ...sample({}), index: index(1, 1), load: load(40) },
      { ...sample({}), index: index(1, 1), load: load(0) },
    ];
    const i: ReportInput = {
      ...input(cold, cold, [info1k]),
      samples: (_n, t, mode) => (t === "floor" ? [floor] : mode === "cold" ? [cold] : warm),
    };
    const markdown = renderReport(i);
    expect(markdown).toContain(
      "- binary warm at 1,000: 1 of 3 sessions started without a start-up index (those were cold starts)",
    );
    expect(markdown).toContain("- binary cold at 1,000: 1 of 1 sessions left no start-up index in their HOME");
    expect(markdown).toContain(
      "- binary warm at 1,000: 1 of 2 sessions parsed files although their HOME had an index (median 40 files)",
    );
  });
});

describe("homes", () => {
  test("fresh HOMEs are new and removed on release; a persistent one is the same until removeAll", () => {
    const homes = new Homes(tempDir("sc-bench-homes-"));
    const a = homes.fresh("cold");
    const b = homes.fresh("cold");
    expect(a).not.toBe(b);
    expect(homes.persistent("binary-n100-warm")).toBe(homes.persistent("binary-n100-warm"));
    const warm = homes.persistent("binary-n100-warm");
    homes.release(a);
    expect(existsSync(a)).toBe(false);
    expect(homes.count).toBe(2);
    homes.removeAll();
    expect([b, warm].some(existsSync)).toBe(false);
    expect(homes.count).toBe(0);
  });

  test("indexIn counts the index files in the cache folder, with their side files", () => {
    const home = tempDir("sc-bench-index-");
    expect(indexIn(home)).toEqual({ files: 0, bytes: 0 });
    mkdirSync(join(home, INDEX_DIR), { recursive: true });
    writeFileSync(join(home, INDEX_DIR, "abc.index.sqlite"), "12345");
    writeFileSync(join(home, INDEX_DIR, "abc.index.sqlite-wal"), "123");
    writeFileSync(join(home, INDEX_DIR, "other.txt"), "1234567");
    expect(indexIn(home)).toEqual({ files: 1, bytes: 8 });
  });
});

// ---------------------------------------------------------------------------

describe("sessions against real servers", () => {
  let corpus: Promise<string> | undefined;
  /** One small corpus for every session test here. */
  const corpusDir = (): Promise<string> => {
    corpus ??= (async () => {
      const dir = tempDir("sc-bench-sessions-");
      await generateCorpus(dir, 100, 5);
      // Files this new are left out of the start-up index (see settledAt), which one test relies on.
      await waitUntilSettled([dir]);
      return dir;
    })();
    return corpus;
  };

  const plan: SessionPlan = { reps: 2, firstCalls: 30, calls: 20, callSeconds: 1, rssAfterMs: 200 };
  const home = tempDir("sc-bench-home-");
  const cli = join(import.meta.dir, "..", "src", "cli.ts");

  test("the floor answers every check, with the fair echo, and yields every figure", async () => {
    const floor = join(import.meta.dir, "floor", "server.ts");
    const info = JSON.parse(readFileSync(join(await corpusDir(), "corpus.json"), "utf8")) as CorpusInfo;
    const result = await runSession(
      { command: process.execPath, args: [floor], cwd: home, home },
      floorWorkload(info),
      plan,
    );
    expect(result.problems).toEqual([]);
    const keys = [
      figureKey.init,
      figureKey.firstList,
      figureKey.firstCalls,
      figureKey.throughput,
      figureKey.op("tools/call valid", "first"),
      figureKey.op("tools/call valid", "warm"),
      figureKey.op("skills:compose", "warm"),
    ];
    for (const key of keys) expect(result.figures[key]).toBeGreaterThan(0);
    // Peak RSS is read no sooner than planned after the first list, and the high-water mark only grows.
    expect(result.figures[figureKey.rssAt]).toBeGreaterThanOrEqual(plan.rssAfterMs - 2);
    if (process.platform === "linux") {
      expect(result.figures[figureKey.rss]).toBeGreaterThan(1);
      expect(result.figures[figureKey.rssEnd]).toBeGreaterThanOrEqual(result.figures[figureKey.rss] as number);
    }
  });

  test("our server with the start-up index on: a fresh HOME gets an index, the next session finds it and parses nothing", async () => {
    const dir = await corpusDir();
    const info = JSON.parse(readFileSync(join(dir, "corpus.json"), "utf8")) as CorpusInfo;
    const warmHome = tempDir("sc-bench-warm-");
    const launch = {
      command: process.execPath,
      args: [cli, "mcp", "--no-watch", "--debug-timing"],
      cwd: dir,
      home: warmHome,
      env: { SKILL_CENTRAL_CACHE: "on" },
    };
    const cold = await runSession(launch, corpusWorkload(info), plan);
    expect(cold.problems).toEqual([]);
    expect(cold.load?.filesParsed).toBe(info.n);
    expect(indexIn(warmHome).files).toBe(1);
    const warm = await runSession(launch, corpusWorkload(info), plan);
    expect(warm.problems).toEqual([]);
    expect(warm.load?.filesParsed).toBe(0);
    expect(warm.load?.sinceStart["first load done"]).toBeGreaterThan(0);
  });

  test("a server whose answers differ from the corpus is caught", async () => {
    const dir = await corpusDir();
    const info = JSON.parse(readFileSync(join(dir, "corpus.json"), "utf8")) as CorpusInfo;
    const wrong: CorpusInfo = { ...info, effective: { ...info.effective, prompts: info.effective.prompts + 1 } };
    const result = await runSession(
      { command: process.execPath, args: [cli, "mcp"], cwd: dir, home },
      corpusWorkload(wrong),
      plan,
    );
    expect(result.problems).toContain(
      `first prompts/list: prompts/list (without skills:compose): got ${info.effective.prompts}, want ${wrong.effective.prompts}`,
    );
  });

  test("a server that cannot start is a failure, not a hang", async () => {
    const info = JSON.parse(readFileSync(join(await corpusDir(), "corpus.json"), "utf8")) as CorpusInfo;
    const result = await runSession(
      { command: process.execPath, args: ["-e", "process.exit(3)"], cwd: home, home },
      floorWorkload(info),
      plan,
    );
    expect(result.problems[0]).toStartWith("session aborted");
  });

  test("closeAllSessions (Ctrl-C, a failure) ends a server that ignores end of input and SIGTERM", async () => {
    const stubborn = `process.on("SIGTERM", () => {}); process.stdin.resume(); setInterval(() => {}, 1000);`;
    const info = JSON.parse(readFileSync(join(await corpusDir(), "corpus.json"), "utf8")) as CorpusInfo;
    const session = runSession(
      { command: process.execPath, args: ["-e", stubborn], cwd: home, home },
      floorWorkload(info),
      plan,
    );
    let pids: number[] = [];
    for (let i = 0; i < 100 && pids.length === 0; i++) {
      await Bun.sleep(20);
      pids = openSessionPids();
    }
    expect(pids).toHaveLength(1);
    await Bun.sleep(300); // let it install its SIGTERM handler
    await closeAllSessions();
    const pid = pids[0] as number;
    const gone = () => !existsSync(`/proc/${pid}`) || /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
    for (let i = 0; i < 50 && !gone(); i++) await Bun.sleep(20);
    if (process.platform === "linux") expect(gone()).toBe(true);
    expect((await session).problems[0]).toStartWith("session aborted");
    expect(openSessionPids()).toEqual([]);
  }, 15_000);
});
