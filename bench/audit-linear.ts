#!/usr/bin/env bun
/**
 * The audit's scan of one 4 MiB single-line file, for each hostile line of
 * test/helpers/hostile-lines.ts (each repeats the start of a rule's match without its end) and for
 * two ordinary ones (a base64 blob, minified code): issue 48 item 8's target is under a second
 * each, on a quiet machine. The rules are proven linear (test/unit/audit-linear.test.ts); this
 * shows the constant.
 *
 *     bun bench/audit-linear.ts [--runs 3]
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { scanFile } from "../src/audit/scan.ts";
import { HOSTILE_LINES, hostileLine } from "../test/helpers/hostile-lines.ts";
import { median } from "./lib/stats.ts";

const { values } = parseArgs({ options: { runs: { type: "string" } } });
const runs = Number(values.runs ?? 3);

const lines: Record<string, string> = {
  ...HOSTILE_LINES,
  "a base64 blob": Buffer.from(crypto.getRandomValues(new Uint8Array(3 * 1024 * 1024))).toString("base64"),
  "minified code": "function f(a){return a.map(x=>x*2).filter(Boolean)};var u='https://x.example/a?b=1';",
};

console.log(`load average ${loadavg()[0]!.toFixed(2)}; median of ${runs} runs; target under 1000 ms each`);
let worst = 0;
for (const [name, unit] of Object.entries(lines)) {
  const bytes = new TextEncoder().encode(unit.length >= 1024 * 1024 ? unit : hostileLine(unit));
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    scanFile("SKILL.md", bytes);
    times.push(performance.now() - started);
  }
  const ms = median(times);
  worst = Math.max(worst, ms);
  console.log(`${ms.toFixed(0).padStart(6)} ms  ${(bytes.length / 1048576).toFixed(1)} MiB  ${name}`);
}
console.log(`worst ${worst.toFixed(0)} ms: ${worst < 1000 ? "under" : "OVER"} the 1 s target`);
