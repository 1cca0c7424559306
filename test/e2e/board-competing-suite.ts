/**
 * The board works out which skills compete once per load, after the load is on screen and in
 * slices between the page's requests (issue 46: it scored every pair on its event loop, per
 * request). Over plain HTTP against the real board process: the load's first version answers
 * the page's requests while the search runs (the cost view says "computing"), and the next
 * version, announced on the page's event stream, carries the pairs and the capped warnings.
 * Run against the source entry and the compiled binary.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { type RunningBoard, startBoard } from "../helpers/board.ts";
import { lookalikeFiles } from "../helpers/lookalike-skills.ts";
import type { ServerTarget } from "../helpers/server.ts";
import type { BoardSummary, CostView } from "../../src/board/wire.ts";

/** Look-alike skills: enough that auditing them (a cold cache) and searching them takes a while, in slices. */
const SKILLS = 5000;

/** The board's event stream, read as it comes: `next()` resolves with the next `load` event's version. */
function loadEvents(board: RunningBoard): { next(): Promise<number>; close(): void } {
  const controller = new AbortController();
  const versions: number[] = [];
  const waiting: ((version: number) => void)[] = [];
  void (async () => {
    const response = await fetch(new URL("api/events", board.base), {
      signal: controller.signal,
      headers: board.authorized(),
    });
    // A refused stream would leave every wait below hanging: the first version says so instead.
    if (response.status !== 200) {
      for (const wake of waiting.splice(0)) wake(-response.status);
      versions.push(-response.status);
      return;
    }
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of response.body!) {
      text += decoder.decode(chunk, { stream: true });
      let end = text.indexOf("\n\n");
      while (end !== -1) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const data = /^event: load\ndata: (.*)$/m.exec(block)?.[1];
        if (data !== undefined) {
          const { version } = JSON.parse(data) as { version: number };
          const wake = waiting.shift();
          if (wake) wake(version);
          else versions.push(version);
        }
        end = text.indexOf("\n\n");
      }
    }
  })().catch(() => {});
  return {
    next: () => {
      const ready = versions.shift();
      return ready !== undefined ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => controller.abort(),
  };
}

export function boardCompetingSuite(target: ServerTarget): void {
  describe(`board: competing skills are searched after the load is shown, off its requests (${target.name})`, () => {
    let fixture: Fixture;
    let board: RunningBoard;
    beforeAll(async () => {
      fixture = makeFixture({ "skill-central.yaml": "builtin: false\n", ...lookalikeFiles(SKILLS, ".skills") });
      board = await startBoard(target, fixture.cwd, fixture.home);
    }, 120_000);
    afterAll(async () => {
      await board?.stop();
      fixture?.cleanup();
    });

    const get = async <T>(path: string): Promise<T> => {
      const response = await fetch(new URL(path, board.base), { headers: board.authorized() });
      expect([path, response.status]).toEqual([path, 200]);
      return (await response.json()) as T;
    };

    test("while the search runs the board answers (the cost view says computing); the next version has the pairs and capped warnings", async () => {
      const events = loadEvents(board);
      try {
        const shown = await events.next();
        // The load is on screen; its audit and its competing skills are being worked out, and
        // become the next version together. Every answer of version `shown` came while they ran,
        // so it must show the skills and say "computing"; which answers still carry `shown`
        // depends on how fast this machine is, so the rule is checked on each answer, not assumed.
        const summary = await get<BoardSummary>("api/summary");
        expect(summary.skills).toHaveLength(SKILLS);
        const page = await get<{ id: string }>(`api/skill/${summary.skills[0]!.id}`);
        expect(page.id).toBe(summary.skills[0]!.id);
        const computing = await get<CostView>("api/cost/cursor");
        const stillShown = await get<BoardSummary>("api/summary");
        if (summary.version === shown)
          expect(summary.problems.some((g) => g.problems.some((p) => p.rule === "competing-skills"))).toBe(false);
        // Answered before the search was done (the version had not moved on): it said so.
        if (stillShown.version === shown) expect(computing.competing).toEqual({ state: "computing" });

        const next = stillShown.version > shown ? stillShown.version : await events.next();
        expect(next).toBeGreaterThan(shown);
        const ready = await get<CostView>("api/cost/cursor");
        expect(ready.competing.state).toBe("ready");
        if (ready.competing.state !== "ready") return;
        expect(ready.competing.pairs).toHaveLength(10);
        expect(ready.competing.total).toBeGreaterThan(10 * SKILLS);
        const after = await get<BoardSummary>("api/summary");
        const competingByFile = after.problems.map((g) => g.problems.filter((p) => p.rule === "competing-skills"));
        expect(competingByFile.filter((found) => found.length > 0)).toHaveLength(SKILLS);
        for (const found of competingByFile) {
          expect(found.length).toBeLessThanOrEqual(11);
          if (found.length === 11) expect(found.at(-1)!.message).toStartWith("…and ");
        }
      } finally {
        events.close();
      }
    }, 180_000);
  });
}
