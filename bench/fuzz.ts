/**
 * The fuzzer at any size, against the source entry or a compiled binary: generated skill files
 * and generated frames over real stdio, every reply checked (see test/helpers/fuzz/). `bun test`
 * runs a few thousand cases of it (test/e2e/fuzz.test.ts); this runs as many as asked, and
 * replays a failure from its seed and case number.
 *
 *   bun bench/fuzz.ts --cases 50000 --seed 7
 *   bun bench/fuzz.ts --binary dist/skill-central --cases 20000
 *   bun bench/fuzz.ts --seed 7 --cases 50000 --case 31337     # replay the session holding case 31337
 *   bun bench/fuzz.ts --seed 7 --show 31337                   # print the skill file case 31337 generates
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Random } from "../test/helpers/fuzz/random.ts";
import { describeFailure, runFuzz, summarise } from "../test/helpers/fuzz/run.ts";
import { hostileSkill } from "../test/helpers/fuzz/skill-files.ts";

const USAGE = `usage: bun bench/fuzz.ts [options]

  --cases N             cases to generate (default 20000)
  --seed S              seed (default: a random one, printed)
  --case K              run only the session that holds case K (to replay a failure)
  --show K              print the skill file(s) case K generates (with --seed), and stop
  --binary PATH         fuzz this compiled binary instead of the source entry
  --reply-timeout MS    a request unanswered this long is a hang (default 10000)
  --window N            requests in flight at once (default 8)
  --stop                stop at the first failing session (default: run them all)
  --help                show this help
`;

function whole(flag: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`${flag} needs a whole number of at least ${min} (got ${value})\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: {
    cases: { type: "string" },
    seed: { type: "string" },
    case: { type: "string" },
    show: { type: "string" },
    binary: { type: "string" },
    "reply-timeout": { type: "string" },
    window: { type: "string" },
    stop: { type: "boolean" },
    help: { type: "boolean" },
  },
  strict: true,
});
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const seed = whole("--seed", values.seed) ?? Math.floor(Math.random() * 2 ** 31);
const show = whole("--show", values.show);
if (show !== undefined) {
  for (const file of hostileSkill(Random.forCase(seed, show), show)) {
    process.stderr.write(`--- seed ${seed}, case ${show}: ${file.path} (${file.label})\n`);
    process.stdout.write(file.content);
    process.stdout.write("\n");
  }
  process.exit(0);
}
const cases = whole("--cases", values.cases, 1) ?? 20_000;
const only = whole("--case", values.case);
const command = values.binary
  ? [resolve(values.binary), "mcp"]
  : [process.execPath, resolve(import.meta.dir, "..", "src", "cli.ts"), "mcp"];
const replay = `bun bench/fuzz.ts${values.binary ? ` --binary ${values.binary}` : ""}`;

process.stderr.write(
  `fuzzing ${command.join(" ")}: seed ${seed}, ${cases} cases${only !== undefined ? `, only the session holding case ${only}` : ""}\n`,
);
const report = await runFuzz({
  seed,
  cases,
  only,
  command,
  replyTimeoutMs: whole("--reply-timeout", values["reply-timeout"], 1) ?? 10_000,
  window: whole("--window", values.window, 1) ?? 8,
  keepGoing: !values.stop,
  onSession: (s) =>
    process.stderr.write(
      `  session ${s.plan.index} (${s.plan.kind}, cases ${s.plan.firstCase}–${s.plan.firstCase + s.plan.files + s.plan.frames - 1}; ${s.settings}): ${s.requests} replies checked, ${(s.ms / 1000).toFixed(1)} s, ${s.failures.length} failures\n`,
    ),
});
process.stdout.write(`${summarise(report)}\n`);
for (const failure of report.failures) process.stdout.write(`\n${describeFailure(report, failure, replay)}\n`);
const failedSessions = report.sessions.filter((s) => s.failures.length > 0);
for (const s of failedSessions)
  process.stdout.write(`\n--- stderr of session ${s.plan.index} (tail)\n${s.stderrTail}\n`);
process.exit(report.failures.length > 0 ? 1 : 0);
