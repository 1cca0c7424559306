/**
 * Turns the collected samples into the markdown report: the issue's targets (cold and warm, with
 * PASS/MISS), per-size tables per mode, the start-up index each session found and left, load
 * phases, notes and failures.
 */
import type { CorpusInfo } from "../corpus.ts";
import type { IndexState } from "./homes.ts";
import type { LoadTiming } from "./load-timing.ts";
import type { Mode, TargetName } from "./options.ts";
import { figureKey, type SessionSample } from "./session.ts";
import { median, summarize, type Summary } from "./stats.ts";
import { OP_NAMES } from "./workload.ts";

export interface RunMeta {
  date: string;
  command: string;
  commit: string;
  bun: string;
  sdk: string;
  machine: string;
  loadBefore: string;
  loadAfter: string;
  binaryHow: string;
  floorHow: string;
  runs: number;
  reps: number;
  firstCalls: number;
  calls: number;
  callSeconds: number;
  rssAfterMs: number;
  noWatch: Partial<Record<TargetName, boolean>>;
  /** Extra environment per target, as passed to the child (e.g. the source entry's SKILL_CENTRAL_CACHE=on). */
  env: Partial<Record<TargetName, Record<string, string>>>;
  elapsedSeconds: number;
}

/** One session's figures plus what the harness saw of its start-up index. */
export interface BenchSample extends SessionSample {
  index?: { before: IndexState; after: IndexState };
}

export interface ReportInput {
  meta: RunMeta;
  corpora: CorpusInfo[];
  targets: TargetName[];
  modes: Mode[];
  /** Our targets' samples per mode; the floor's (which has no cache) whatever the mode. */
  samples: (size: number, target: TargetName, mode: Mode) => BenchSample[];
  /** Things the harness noticed that are not wrong answers (e.g. a warm HOME without an index). */
  notes?: string[];
}

interface Figure {
  key: string;
  unit: "ms" | "calls/s" | "MB";
}

const FIGURES: Figure[] = [
  { key: figureKey.init, unit: "ms" },
  { key: figureKey.firstList, unit: "ms" },
  ...OP_NAMES.flatMap((op): Figure[] => [
    { key: figureKey.op(op, "first"), unit: "ms" },
    { key: figureKey.op(op, "warm"), unit: "ms" },
  ]),
  { key: figureKey.firstCalls, unit: "calls/s" },
  { key: figureKey.throughput, unit: "calls/s" },
  { key: figureKey.rss, unit: "MB" },
  { key: figureKey.rssAt, unit: "ms" },
  { key: figureKey.rssEnd, unit: "MB" },
];

const OURS: TargetName[] = ["source", "binary"];

/** How a figure is printed, with the run's parameters where they define it. */
function label(meta: RunMeta, key: string): string {
  if (key === figureKey.firstCalls)
    return `tools/call throughput, first ${meta.firstCalls.toLocaleString("en-US")} calls`;
  if (key === figureKey.rss) return `peak RSS ${meta.rssAfterMs / 1000} s after first list`;
  if (key === figureKey.rssAt) return "… read at, after first list";
  return key;
}

// ---------------------------------------------------------------------------
// Formatting

function num(v: number): string {
  if (!Number.isFinite(v)) return "–";
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString("en-US");
  return v.toFixed(Math.abs(v) >= 10 ? 1 : 2);
}

/** A count (ids, files): whole numbers as such, a median between two counts with its decimals. */
function count(v: number): string {
  return Number.isInteger(v) ? v.toLocaleString("en-US") : num(v);
}

function cell(s: Summary): string {
  return s.n === 0 ? "–" : `${num(s.median)} (${num(s.p25)}–${num(s.p75)})`;
}

function ratio(v: number): string {
  return Number.isFinite(v) ? `${v.toFixed(2)}×` : "–";
}

function sizeLabel(n: number): string {
  return n.toLocaleString("en-US");
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

// ---------------------------------------------------------------------------
// Figures

function values(samples: SessionSample[], key: string): number[] {
  return samples.map((s) => s.figures[key] ?? Number.NaN);
}

function failed(samples: SessionSample[]): boolean {
  return samples.some((s) => s.problems.length > 0);
}

function medianOf(input: ReportInput, size: number, target: TargetName, mode: Mode, key: string): number {
  return median(values(input.samples(size, target, mode), key));
}

function corpusHeading(info: CorpusInfo): string {
  return (
    `${sizeLabel(info.n)} skill files: ${info.effective.prompts} prompts, ${info.effective.tools} tools, ` +
    `${info.overrides.length} overrides; compose tag ${info.tagQuery.tag} → ${info.tagQuery.expectedPrompts} prompts; ` +
    `sample tool answer ${info.sampleTool.expectedText.length} characters`
  );
}

function sizeTable(input: ReportInput, info: CorpusInfo, mode: Mode): string {
  const ours = OURS.filter((t) => input.targets.includes(t));
  const hasFloor = input.targets.includes("floor");
  const columns: TargetName[] = [...ours, ...(hasFloor ? (["floor"] as const) : [])];
  const ratioTargets = hasFloor ? ours : [];
  const samples = (t: TargetName) => input.samples(info.n, t, mode);
  const name = (t: TargetName) => (t === "floor" ? "floor" : `${t} ${mode}`);
  const header = [
    "figure",
    ...columns.map((t) => (failed(samples(t)) ? `${name(t)} **FAILED**` : name(t))),
    ...ratioTargets.map((t) => `${t} ${mode}/floor`),
  ];
  const rows = FIGURES.map((f) => {
    const cells = columns.map((t) => (failed(samples(t)) ? "FAILED" : cell(summarize(values(samples(t), f.key)))));
    const floor = medianOf(input, info.n, "floor", mode, f.key);
    const ratios = ratioTargets.map((t) =>
      failed(samples(t)) || failed(samples("floor"))
        ? "FAILED"
        : ratio(medianOf(input, info.n, t, mode, f.key) / floor),
    );
    return [`${label(input.meta, f.key)} (${f.unit})`, ...cells, ...ratios];
  });
  return `#### ${sizeLabel(info.n)} skill files, ${mode}\n\n${table(header, rows)}`;
}

// ---------------------------------------------------------------------------
// Targets from the issue: compiled binary ÷ the floor from the same rounds

export interface Goal {
  size: number;
  mode: Mode;
  /** Our figure… */
  figure: string;
  /** …divided by this figure of the floor's. */
  floorFigure: string;
  limit: number;
  atLeast: boolean;
}

const THROUGHPUT_SIZES = [100, 1000, 10000];

/** Issue 10's targets. Throughput: warm = steady state; cold = a cold session's first calls (the floor's first calls too). */
export function goals(): Goal[] {
  const same = (size: number, mode: Mode, figure: string, limit: number, atLeast = false): Goal => ({
    size,
    mode,
    figure,
    floorFigure: figure,
    limit,
    atLeast,
  });
  return [
    same(1000, "warm", figureKey.firstList, 1.5),
    same(1000, "cold", figureKey.firstList, 2),
    same(10000, "warm", figureKey.firstList, 3.5),
    same(10000, "cold", figureKey.firstList, 9),
    same(1000, "warm", figureKey.rss, 1.5),
    same(1000, "cold", figureKey.rss, 1.5),
    same(10000, "warm", figureKey.rss, 2.5),
    same(10000, "cold", figureKey.rss, 2.5),
    ...THROUGHPUT_SIZES.flatMap((size) => [
      same(size, "warm", figureKey.throughput, 0.9, true),
      same(size, "cold", figureKey.firstCalls, 0.9, true),
    ]),
  ];
}

export type Verdict = "PASS" | "MISS" | "FAILED" | "n/a";

export interface GoalResult {
  goal: Goal;
  /** Binary median ÷ floor median. */
  measured: number;
  ours: number;
  floor: number;
  verdict: Verdict;
}

function evaluate(input: ReportInput, goal: Goal): GoalResult {
  const none = { goal, measured: Number.NaN, ours: Number.NaN, floor: Number.NaN };
  if (!input.targets.includes("binary") || !input.targets.includes("floor")) return { ...none, verdict: "n/a" };
  const bad =
    failed(input.samples(goal.size, "binary", goal.mode)) || failed(input.samples(goal.size, "floor", goal.mode));
  if (bad) return { ...none, verdict: "FAILED" };
  const ours = medianOf(input, goal.size, "binary", goal.mode, goal.figure);
  const floor = medianOf(input, goal.size, "floor", goal.mode, goal.floorFigure);
  const measured = ours / floor;
  if (!Number.isFinite(measured)) return { goal, measured, ours, floor, verdict: "n/a" };
  const ok = goal.atLeast ? measured >= goal.limit : measured <= goal.limit;
  return { goal, measured, ours, floor, verdict: ok ? "PASS" : "MISS" };
}

const UNITS: Record<string, string> = {
  [figureKey.firstList]: "ms",
  [figureKey.rss]: "MB",
  [figureKey.throughput]: "calls/s",
  [figureKey.firstCalls]: "calls/s",
};

function goalRow(meta: RunMeta, { goal, measured, ours, floor, verdict }: GoalResult): string[] {
  const unit = UNITS[goal.figure] ?? "";
  const figures = Number.isFinite(ours) && Number.isFinite(floor) ? `${num(ours)} / ${num(floor)} ${unit}` : "–";
  return [
    `${label(meta, goal.figure)} at ${sizeLabel(goal.size)}`,
    goal.mode,
    figures,
    ratio(measured),
    `${goal.atLeast ? "≥" : "≤"} ${goal.limit}× floor`,
    verdict === "PASS" ? "PASS" : `**${verdict}**`,
  ];
}

/** The targets this run measured (its sizes and modes). */
export function goalResults(input: ReportInput): GoalResult[] {
  const sizes = input.corpora.map((c) => c.n);
  return goals()
    .filter((g) => sizes.includes(g.size) && input.modes.includes(g.mode))
    .map((g) => evaluate(input, g));
}

function goalsSection(input: ReportInput): string {
  const results = goalResults(input);
  const sizes = input.corpora.map((c) => c.n);
  const missingSizes = [...new Set(goals().map((g) => g.size))].filter((n) => !sizes.includes(n));
  const missingModes = [...new Set(goals().map((g) => g.mode))].filter((m) => !input.modes.includes(m));
  const notes = [
    ...(missingSizes.length > 0 ? [`sizes ${missingSizes.map(sizeLabel).join(", ")}`] : []),
    ...(missingModes.length > 0 ? [`mode ${missingModes.join(", ")}`] : []),
  ];
  const note = notes.length > 0 ? `\n\nNot measured in this run: ${notes.join("; ")}.` : "";
  const header = ["target", "mode", "binary / floor (medians)", "ratio", "limit", "result"];
  return `## Targets (compiled binary ÷ floor, issue 10)\n\n${table(
    header,
    results.map((r) => goalRow(input.meta, r)),
  )}${note}`;
}

// ---------------------------------------------------------------------------
// Start-up index: what each session found in its HOME and what it left there

interface Entry {
  size: number;
  target: TargetName;
  mode: Mode;
  samples: BenchSample[];
}

function entries(input: ReportInput): Entry[] {
  return input.corpora.flatMap((c) =>
    OURS.filter((t) => input.targets.includes(t)).flatMap((target) =>
      input.modes.map((mode) => ({ size: c.n, target, mode, samples: input.samples(c.n, target, mode) })),
    ),
  );
}

function indexSection(input: ReportInput): string | null {
  const rows: string[][] = [];
  for (const e of entries(input)) {
    const seen = e.samples.flatMap((s) => (s.index ? [s.index] : []));
    if (seen.length === 0) continue;
    const loads = e.samples.flatMap((s) => (s.load?.filesParsed === undefined ? [] : [s.load.filesParsed]));
    rows.push([
      sizeLabel(e.size),
      e.target,
      e.mode,
      `${seen.filter((i) => i.before.files > 0).length} of ${seen.length}`,
      `${seen.filter((i) => i.after.files > 0).length} of ${seen.length}`,
      num(median(seen.filter((i) => i.after.files > 0).map((i) => i.after.bytes / 2 ** 20))),
      loads.length > 0 ? count(median(loads)) : "–",
    ]);
  }
  if (rows.length === 0) return null;
  const header = [
    "size",
    "target",
    "mode",
    "sessions that found an index",
    "sessions that left one",
    "index size (MB, median)",
    "files parsed (median, --debug-timing)",
  ];
  return `## Start-up index (in each session's HOME)\n\n${table(header, rows)}`;
}

// ---------------------------------------------------------------------------
// Load phases (--debug-timing)

function namesIn(loads: LoadTiming[], pick: (l: LoadTiming) => Record<string, number>): string[] {
  const names: string[] = [];
  for (const l of loads) for (const p of Object.keys(pick(l))) if (!names.includes(p)) names.push(p);
  return names;
}

function loadSection(input: ReportInput): string | null {
  const all = entries(input).map((e) => ({ ...e, loads: e.samples.flatMap((s) => (s.load ? [s.load] : [])) }));
  const everyLoad = all.flatMap((e) => e.loads);
  if (everyLoad.length === 0) return null;
  const phaseNames = namesIn(everyLoad, (l) => l.phases);
  const milestoneNames = namesIn(everyLoad, (l) => l.sinceStart);
  const rows = all
    .filter((e) => e.loads.length > 0)
    .map((e) => {
      const of = (pick: (l: LoadTiming) => number | undefined) => median(e.loads.map((l) => pick(l) ?? Number.NaN));
      const med = (pick: (l: LoadTiming) => number | undefined) => num(of(pick));
      return [
        sizeLabel(e.size),
        e.target,
        e.mode,
        count(of((l) => l.ids)),
        count(of((l) => l.filesParsed)),
        med((l) => l.totalMs),
        ...phaseNames.map((p) => med((l) => l.phases[p])),
        ...milestoneNames.map((m) => med((l) => l.sinceStart[m])),
      ];
    });
  const header = [
    "size",
    "target",
    "mode",
    "ids",
    "files parsed",
    "load total (ms)",
    ...phaseNames.map((p) => `${p} (ms)`),
    ...milestoneNames.map((m) => (m === "cpu" ? "cpu used by then (ms)" : `${m} (ms since start)`)),
  ];
  return `## Load phases (server's own --debug-timing, medians)\n\n${table(header, rows)}`;
}

// ---------------------------------------------------------------------------
// Notes and failures

/** What the index figures say about how warm "warm" was, in words, where it was not as expected. */
function indexNotes(input: ReportInput): string[] {
  const notes: string[] = [];
  for (const e of entries(input)) {
    const name = `${e.target} ${e.mode} at ${sizeLabel(e.size)}`;
    const seen = e.samples.flatMap((s) => (s.index ? [s.index] : []));
    const withoutIndex = seen.filter((i) => i.before.files === 0).length;
    const leftNone = seen.filter((i) => i.after.files === 0).length;
    if (e.mode === "warm" && withoutIndex > 0)
      notes.push(
        `${name}: ${withoutIndex} of ${seen.length} sessions started without a start-up index (those were cold starts)`,
      );
    if (leftNone > 0)
      notes.push(`${name}: ${leftNone} of ${seen.length} sessions left no start-up index in their HOME`);
    const parsed = e.samples.flatMap((s) =>
      s.load?.filesParsed === undefined || !s.index?.before.files ? [] : [s.load.filesParsed],
    );
    const reparsed = parsed.filter((n) => n > 0);
    if (e.mode === "warm" && reparsed.length > 0) {
      notes.push(
        `${name}: ${reparsed.length} of ${parsed.length} sessions parsed files although their HOME had an index (median ${count(median(reparsed))} files)`,
      );
    }
  }
  return notes;
}

function notesSection(input: ReportInput): string | null {
  const notes = [...(input.notes ?? []), ...indexNotes(input)];
  return notes.length === 0 ? null : `## Notes\n\n${notes.map((n) => `- ${n}`).join("\n")}`;
}

function failuresSection(input: ReportInput): string | null {
  const lines: string[] = [];
  for (const c of input.corpora) {
    for (const t of input.targets) {
      for (const mode of t === "floor" ? [input.modes[0] as Mode] : input.modes) {
        const problems = [...new Set(input.samples(c.n, t, mode).flatMap((s) => s.problems))];
        if (problems.length === 0) continue;
        lines.push(
          `- **${t === "floor" ? t : `${t} ${mode}`} at ${sizeLabel(c.n)}**: ${problems.length} distinct problem(s)`,
        );
        for (const p of problems.slice(0, 5)) lines.push(`  - ${p.replaceAll("\n", " ").slice(0, 400)}`);
      }
    }
  }
  return lines.length === 0
    ? null
    : `## FAILED checks\n\nThese figures are withheld: the server answered wrongly.\n\n${lines.join("\n")}`;
}

// ---------------------------------------------------------------------------

function header(input: ReportInput): string {
  const meta = input.meta;
  const noWatch = Object.entries(meta.noWatch)
    .map(([t, on]) => `${t} ${on ? "with" : "without"} --no-watch`)
    .join(", ");
  const env = Object.entries(meta.env)
    .map(
      ([t, vars]) =>
        `${t} with ${Object.entries(vars ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(" ")}`,
    )
    .join(", ");
  return [
    `# skill-central benchmark, ${meta.date}`,
    "",
    `\`${meta.command}\` · commit ${meta.commit} · Bun ${meta.bun} · SDK ${meta.sdk} · ${meta.machine} · load average ${meta.loadBefore} → ${meta.loadAfter} · ${Math.round(meta.elapsedSeconds)} s`,
    "",
    `${meta.runs} sessions per size, target and mode (after one unrecorded warm-up round), interleaved round by round. ` +
      `Modes (${input.modes.join(", ")}): cold = a new empty HOME per session (no start-up index); warm = a HOME kept for the run, whose index the warm-up session wrote. ` +
      `The floor has no cache: it runs once per round and its figures are compared with both modes.`,
    "",
    `Each session: spawn, initialize, every page of prompts/list; then at once ${meta.firstCalls.toLocaleString("en-US")} sequential valid tools/call timed as one block ` +
      `(its first call is "tools/call valid (first)"); then nothing until ${meta.rssAfterMs / 1000} s after the first list completed (or the calls' end, if later), when peak RSS (VmHWM) is read, so work the server defers to its first idle moment counts and the requests below do not; then each request kind ${meta.reps} times ("first" = the session's first of that kind, "warm" = the median of the rest); ` +
      `then steady-state throughput (${meta.calls} calls or ${meta.callSeconds} s after a tenth as many untimed); then peak RSS again ("whole session"). ` +
      `The floor's echo is sent our sample tool's expected answer (same length, same characters), so both answer as many characters. ` +
      `Each cell: median (p25–p75) over sessions; x/floor = our median ÷ the floor's median from the same rounds (for throughput higher is better; the floor has no compose, so its skills:compose row is its prompts/get).`,
    "",
    `binary: ${meta.binaryHow}; floor: ${meta.floorHow}; source: bun src/cli.ts mcp${noWatch ? `; ${noWatch}` : ""}${env ? `; ${env}` : ""}.`,
  ].join("\n");
}

export function renderReport(input: ReportInput): string {
  const sections = [
    header(input),
    goalsSection(input),
    "## Figures",
    ...input.corpora.map((c) =>
      [`### ${corpusHeading(c)}`, ...input.modes.map((m) => sizeTable(input, c, m))].join("\n\n"),
    ),
    indexSection(input),
    loadSection(input),
    notesSection(input),
    failuresSection(input),
  ];
  return `${sections.filter((s): s is string => s !== null).join("\n\n")}\n`;
}

export function anyFailed(input: ReportInput): boolean {
  return input.corpora.some((c) =>
    input.targets.some((t) => input.modes.some((m) => failed(input.samples(c.n, t, m)))),
  );
}
