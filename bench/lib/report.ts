/** Turns the collected samples into the markdown report: per-size tables, targets, load phases, failures. */
import type { CorpusInfo } from "../corpus.ts";
import type { TargetName } from "./options.ts";
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
  calls: number;
  callSeconds: number;
  noWatch: Partial<Record<TargetName, boolean>>;
  elapsedSeconds: number;
}

export interface ReportInput {
  meta: RunMeta;
  corpora: CorpusInfo[];
  targets: TargetName[];
  samples: (size: number, target: TargetName) => SessionSample[];
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
  { key: figureKey.throughput, unit: "calls/s" },
  { key: figureKey.rss, unit: "MB" },
];

const OURS: TargetName[] = ["source", "binary"];

// ---------------------------------------------------------------------------
// Formatting

function num(v: number): string {
  if (!Number.isFinite(v)) return "–";
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString("en-US");
  return v.toFixed(Math.abs(v) >= 10 ? 1 : 2);
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

function medianOf(input: ReportInput, size: number, target: TargetName, key: string): number {
  return median(values(input.samples(size, target), key));
}

function sizeTable(input: ReportInput, info: CorpusInfo): string {
  const targets = input.targets;
  const ratioTargets = targets.includes("floor") ? OURS.filter((t) => targets.includes(t)) : [];
  const header = [
    "figure",
    ...targets.map((t) => (failed(input.samples(info.n, t)) ? `${t} **FAILED**` : t)),
    ...ratioTargets.map((t) => `${t}/floor`),
  ];
  const rows = FIGURES.map((f) => {
    const cells = targets.map((t) => {
      const samples = input.samples(info.n, t);
      return failed(samples) ? "FAILED" : cell(summarize(values(samples, f.key)));
    });
    const floor = medianOf(input, info.n, "floor", f.key);
    const ratios = ratioTargets.map((t) =>
      failed(input.samples(info.n, t)) || failed(input.samples(info.n, "floor")) ? "FAILED" : ratio(medianOf(input, info.n, t, f.key) / floor),
    );
    return [`${f.key} (${f.unit})`, ...cells, ...ratios];
  });
  const heading =
    `### ${sizeLabel(info.n)} skill files: ${info.effective.prompts} prompts, ${info.effective.tools} tools, ` +
    `${info.overrides.length} overrides; compose tag ${info.tagQuery.tag} → ${info.tagQuery.expectedPrompts} prompts`;
  return `${heading}\n\n${table(header, rows)}`;
}

// ---------------------------------------------------------------------------
// Targets from the issue (compiled binary)

interface Goal {
  size: number;
  figure: string;
  /** "ratio": binary median / floor median; "absolute": binary median. */
  kind: "ratio" | "absolute";
  limit: number;
  atLeast: boolean;
}

function goals(sizes: number[]): Goal[] {
  return [
    { size: 1000, figure: figureKey.init, kind: "ratio", limit: 1.5, atLeast: false },
    { size: 10000, figure: figureKey.init, kind: "absolute", limit: 300, atLeast: false },
    { size: 1000, figure: figureKey.firstList, kind: "ratio", limit: 2, atLeast: false },
    { size: 10000, figure: figureKey.firstList, kind: "absolute", limit: 400, atLeast: false },
    ...sizes.map((size): Goal => ({ size, figure: figureKey.throughput, kind: "ratio", limit: 0.9, atLeast: true })),
    { size: 1000, figure: figureKey.rss, kind: "absolute", limit: 60, atLeast: false },
    { size: 10000, figure: figureKey.rss, kind: "absolute", limit: 150, atLeast: false },
  ];
}

export type Verdict = "PASS" | "MISS" | "FAILED" | "n/a";

interface GoalResult {
  goal: Goal;
  measured: number;
  verdict: Verdict;
}

function evaluate(input: ReportInput, goal: Goal): GoalResult {
  const needed: TargetName[] = goal.kind === "ratio" ? ["binary", "floor"] : ["binary"];
  if (!needed.every((t) => input.targets.includes(t))) return { goal, measured: Number.NaN, verdict: "n/a" };
  if (needed.some((t) => failed(input.samples(goal.size, t)))) return { goal, measured: Number.NaN, verdict: "FAILED" };
  const ours = medianOf(input, goal.size, "binary", goal.figure);
  const measured = goal.kind === "ratio" ? ours / medianOf(input, goal.size, "floor", goal.figure) : ours;
  if (!Number.isFinite(measured)) return { goal, measured, verdict: "n/a" };
  const ok = goal.atLeast ? measured >= goal.limit : measured <= goal.limit;
  return { goal, measured, verdict: ok ? "PASS" : "MISS" };
}

function goalRow({ goal, measured, verdict }: GoalResult): string[] {
  const unit = goal.kind === "ratio" ? "× floor" : goal.figure === figureKey.rss ? " MB" : " ms";
  const shown = goal.kind === "ratio" ? ratio(measured) : Number.isFinite(measured) ? `${num(measured)}${unit}` : "–";
  const limit = `${goal.atLeast ? "≥" : "≤"} ${goal.limit}${unit}`;
  return [`${goal.figure} at ${sizeLabel(goal.size)}`, shown, limit, verdict === "PASS" ? "PASS" : `**${verdict}**`];
}

export function goalResults(input: ReportInput): GoalResult[] {
  const sizes = input.corpora.map((c) => c.n);
  return goals(sizes)
    .filter((g) => sizes.includes(g.size))
    .map((g) => evaluate(input, g));
}

function goalsSection(input: ReportInput): string {
  const results = goalResults(input);
  const skipped = goals(input.corpora.map((c) => c.n)).filter((g) => !input.corpora.some((c) => c.n === g.size));
  const note = skipped.length > 0 ? `\n\nNot measured in this run (size not included): ${[...new Set(skipped.map((g) => sizeLabel(g.size)))].join(", ")}.` : "";
  return `## Targets (compiled binary)\n\n${table(["target", "measured", "limit", "result"], results.map(goalRow))}${note}`;
}

// ---------------------------------------------------------------------------
// Load phases (--debug-timing)

function loadSection(input: ReportInput): string | null {
  const rows: string[][] = [];
  const phaseNames: string[] = [];
  const entries = input.corpora.flatMap((c) =>
    OURS.filter((t) => input.targets.includes(t)).map((t) => ({ size: c.n, target: t, loads: input.samples(c.n, t).flatMap((s) => (s.load ? [s.load] : [])) })),
  );
  for (const e of entries) for (const l of e.loads) for (const p of Object.keys(l.phases)) if (!phaseNames.includes(p)) phaseNames.push(p);
  for (const e of entries) {
    if (e.loads.length === 0) continue;
    rows.push([
      sizeLabel(e.size),
      e.target,
      String(median(e.loads.map((l) => l.ids))),
      num(median(e.loads.map((l) => l.totalMs))),
      ...phaseNames.map((p) => num(median(e.loads.map((l) => l.phases[p] ?? Number.NaN)))),
    ]);
  }
  if (rows.length === 0) return null;
  const header = ["size", "target", "ids", "load total (ms)", ...phaseNames.map((p) => `${p} (ms)`)];
  return `## Load phases (server's own --debug-timing, medians)\n\n${table(header, rows)}`;
}

// ---------------------------------------------------------------------------
// Failures

function failuresSection(input: ReportInput): string | null {
  const lines: string[] = [];
  for (const c of input.corpora) {
    for (const t of input.targets) {
      const problems = [...new Set(input.samples(c.n, t).flatMap((s) => s.problems))];
      if (problems.length === 0) continue;
      lines.push(`- **${t} at ${sizeLabel(c.n)}**: ${problems.length} distinct problem(s)`);
      for (const p of problems.slice(0, 5)) lines.push(`  - ${p.replaceAll("\n", " ").slice(0, 400)}`);
    }
  }
  return lines.length === 0 ? null : `## FAILED checks\n\nThese figures are withheld: the server answered wrongly.\n\n${lines.join("\n")}`;
}

// ---------------------------------------------------------------------------

function header(meta: RunMeta): string {
  const noWatch = Object.entries(meta.noWatch)
    .map(([t, on]) => `${t} ${on ? "with" : "without"} --no-watch`)
    .join(", ");
  return [
    `# skill-central benchmark, ${meta.date}`,
    "",
    `\`${meta.command}\` · commit ${meta.commit} · Bun ${meta.bun} · SDK ${meta.sdk} · ${meta.machine} · load average ${meta.loadBefore} → ${meta.loadAfter} · ${Math.round(meta.elapsedSeconds)} s`,
    "",
    `${meta.runs} sessions per size and target (after one unrecorded warm-up), interleaved round by round. ` +
      `Each cell: median (p25–p75) over sessions. "first" is a session's first request of that kind, "warm" the median of the next ${meta.reps - 1}. ` +
      `Throughput: sequential valid tools/call, ${meta.calls} calls or ${meta.callSeconds} s per session. ` +
      `x/floor = our median ÷ the floor's median from the same rounds (for throughput higher is better; the floor has no compose, so its skills:compose row is its prompts/get).`,
    "",
    `binary: ${meta.binaryHow}; floor: ${meta.floorHow}; source: bun src/cli.ts mcp${noWatch ? `; ${noWatch}` : ""}.`,
  ].join("\n");
}

export function renderReport(input: ReportInput): string {
  const sections = [
    header(input.meta),
    goalsSection(input),
    "## Figures",
    ...input.corpora.map((c) => sizeTable(input, c)),
    loadSection(input),
    failuresSection(input),
  ];
  return `${sections.filter((s): s is string => s !== null).join("\n\n")}\n`;
}

export function anyFailed(input: ReportInput): boolean {
  return input.corpora.some((c) => input.targets.some((t) => failed(input.samples(c.n, t))));
}
