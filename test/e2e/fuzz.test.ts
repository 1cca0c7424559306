import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { describeFailure, planSessions, runFuzz, summarise, type FuzzReport } from "../helpers/fuzz/run.ts";
import { runSession, type SessionOptions } from "../helpers/fuzz/session.ts";
import { SOURCE_ENTRY } from "../helpers/server.ts";

/**
 * Generated skill files and generated frames against the real server (source entry) over stdio:
 * every request gets one valid JSON-RPC reply with its id (or, for an invalid id or a batch,
 * -32600 with id null), within a bound; stdout carries JSON-RPC only; the process lives until
 * stdin closes and then exits 0; the valid skills among the broken ones are served throughout.
 * The generators, the driver and the checks are in test/helpers/fuzz/. A failure prints its seed,
 * case number and the command that replays it; `bun bench/fuzz.ts` runs any number of cases.
 *
 * FUZZ_SEED and FUZZ_CASES override the defaults (e.g. to try a new seed locally).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261204);
const CASES = Number(process.env.FUZZ_CASES ?? 5000);
const SOURCE = [process.execPath, SOURCE_ENTRY, "mcp"];
/**
 * A reply later than this is a hang: far above any real answer, even on a busy two-core CI
 * machine (with two CPU-bound processes beside the suite, a first load of 150 broken files has
 * kept a reply waiting 15 s; a real hang never answers at all).
 */
const OPTIONS: SessionOptions = { command: SOURCE, replyTimeoutMs: 60_000, window: 8 };

const replay = "bun bench/fuzz.ts";

describe(`fuzz over stdio (seed ${SEED}, ${CASES} cases)`, () => {
  for (const plan of planSessions(CASES)) {
    const last = plan.firstCase + plan.files + plan.frames - 1;
    test(`session ${plan.index} (${plan.kind}): cases ${plan.firstCase}–${last}, ${plan.files} skill files and ${plan.frames} frames`, {
      timeout: 300_000,
    }, async () => {
      const session = await runSession(SEED, plan, OPTIONS);
      const report: FuzzReport = {
        seed: SEED,
        cases: CASES,
        sessions: [session],
        failures: session.failures,
        ms: session.ms,
      };
      if (session.failures.length > 0)
        console.error(`${summarise(report)}\n--- stderr of the server (tail)\n${session.stderrTail}`);
      expect(session.failures.map((f) => describeFailure(report, f, replay))).toEqual([]);
      // The session ran what it was planned to: not a run that stopped early and passed.
      expect(Object.values(session.kinds).reduce((a, b) => a + b, 0)).toBe(plan.files + plan.frames);
      expect(session.requests).toBeGreaterThan(plan.kind === "layer" ? 20 : plan.frames / 2);
    });
  }
});

describe("the fuzzer notices a server that misbehaves", () => {
  const FAULTY = join(import.meta.dir, "..", "helpers", "fuzz", "faulty-server.ts");
  const faults: [string, RegExp][] = [
    ["garbage", /stdout carried a line that is not JSON/],
    ["drop", /no reply within|never answered/],
    ["wrong-id", /which was never sent/],
    ["internal", /internal error \(-32603\): planted/],
    ["no-null", /call for a reply with id null \(Invalid Request\); \d+ came/],
    ["crash", /the server exited \(code 3/],
  ];
  for (const [fault, expected] of faults) {
    test(`${fault}`, { timeout: 60_000 }, async () => {
      const command = ["env", `FAULT=${fault}`, "AFTER=30", process.execPath, FAULTY, ...SOURCE];
      // One short frames session; a short reply bound so that a swallowed reply fails fast.
      const report = await runFuzz({ seed: 1, cases: 400, command, replyTimeoutMs: 3_000, window: 8, keepGoing: true });
      expect(report.failures.map((f) => f.problem).join("\n")).toMatch(expected);
    });
  }
});
