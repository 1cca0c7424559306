/**
 * The board's time to ready: how long the page takes from navigation until it has drawn the
 * skill list, problems and status (it then sets `data-version` on <body>), over the benchmark
 * corpora, in Debian's chromium through playwright-core. Not a test: numbers for docs/board.md.
 *
 *   bun bench/board.ts [--sizes 1000,10000] [--runs 5] [--seed 42] [--binary]
 *
 * Each size: one board (`--port 0`, a fresh HOME), the first navigation once its first load is
 * done (cold: the page's bundle and the first summary are built then), then `runs` reloads (warm).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildForTests } from "../script/build.ts";
import { launchChromium, startBoard } from "../test/helpers/board.ts";
import { SOURCE_ENTRY } from "../test/helpers/server.ts";
import { ensureCorpus } from "./lib/corpora.ts";
import { summarize } from "./lib/stats.ts";

type PageGlobals = { document: { body: { dataset: Record<string, string | undefined> } } };

const argv = process.argv.slice(2);
const flagValue = (name: string, fallback: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const sizes = flagValue("--sizes", "1000,10000").split(",").map(Number);
const runs = Number(flagValue("--runs", "5"));
const seed = Number(flagValue("--seed", "42"));
const binary = argv.includes("--binary");

const target = binary
  ? { name: "binary", command: await buildForTests(), args: ["board"] }
  : { name: "source", command: process.execPath, args: [SOURCE_ENTRY, "board"] };
const browser = await launchChromium();
process.stdout.write(
  `| skills | first load served (ms) | page ready, first visit (ms) | page ready, warm (median of ${runs}, ms) |\n`,
);
process.stdout.write("|---:|---:|---:|---:|\n");
for (const size of sizes) {
  const corpus = await ensureCorpus(join(import.meta.dir, ".corpus"), size, seed);
  const home = mkdtempSync(join(tmpdir(), "board-bench-home-"));
  const started = performance.now();
  const board = await startBoard(target, corpus.dir, home);
  // The first load is done when the summary answers (it waits for it).
  await fetch(new URL("api/summary", board.base), { headers: board.authorized() });
  const served = performance.now() - started;
  const page = await browser.newPage();
  const ready = async (navigate: () => Promise<unknown>) => {
    const t0 = performance.now();
    await navigate();
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.body.dataset.version !== undefined,
    );
    return performance.now() - t0;
  };
  const first = await ready(() => page.goto(board.url));
  const warm: number[] = [];
  for (let i = 0; i < runs; i++) warm.push(await ready(() => page.reload()));
  process.stdout.write(
    `| ${size} | ${served.toFixed(0)} | ${first.toFixed(0)} | ${summarize(warm).median.toFixed(0)} |\n`,
  );
  await page.close();
  await board.stop();
  rmSync(home, { recursive: true, force: true });
}
await browser.close();
process.stderr.write(`(${target.name}; ${process.platform}-${process.arch}; bun ${Bun.version})\n`);
