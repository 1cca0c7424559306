/**
 * Each skill's last eval results (docs/eval.md), as the server read them from the eval workspace:
 * the Evals view (`#/evals`: every skill with results, worst first, then the skills never run and
 * any results file skipped), its line on the Overview, and the Evals section of a skill's page.
 * Routing figures are labelled as what they are, a proxy for a model's choice.
 */
import { localTime } from "./dates.ts";
import { el, place, table } from "./dom.ts";
import type { EvalRow, EvalStanding, EvalsView, ModelEval, RoutingEval } from "../wire.ts";

const pct = (share: number | null | undefined) =>
  share === null || share === undefined ? "–" : `${Math.round(share * 100)}%`;
const points = (delta: number | null) =>
  delta === null ? "–" : `${delta > 0 ? "+" : delta < 0 ? "−" : "±"}${Math.abs(Math.round(delta * 100))} points`;
const when = (iso: string | undefined) =>
  iso === undefined || Number.isNaN(Date.parse(iso))
    ? "unknown"
    : el("time", { datetime: iso }, localTime(Date.parse(iso)));
const skillLink = (id: string) => el("a", { href: `#/skill/${encodeURIComponent(id)}` }, id);
const code = (text: string) => el("code", {}, text);

const STANDING_WORDS: Record<EvalStanding, string> = {
  worse: "worse than without it",
  "under-threshold": "under the threshold",
  "needs-recording": "needs a new recording",
  ok: "ok",
};

const PROXY =
  "Routing ranks each trigger query with the server's own search: a proxy for a model's choice, not the choice.";

function standing(row: EvalRow): HTMLElement | string {
  const words = STANDING_WORDS[row.standing];
  return row.standing === "ok" ? words : el("strong", { class: `standing-${row.standing}` }, words);
}

function wonText(routing: RoutingEval): string {
  return routing.wonInstead.map((w) => `${w.skill} ×${w.times}`).join(", ");
}

/** Recall@1 and @3 and false fires, in one cell that wraps: the table fits its card. */
function routingCell(r: RoutingEval): string {
  if (!r.reachable) return `not reachable by ${r.client ?? "the client"}`;
  return `recall@1 ${pct(r.recallAt1)}, @3 ${pct(r.recallAt3)}; ${r.falseFires} false fire${r.falseFires === 1 ? "" : "s"}`;
}

/** Pass rate with and without, the delta, trigger rate and verdict, in one cell that wraps. */
function modelCell(m: ModelEval): string {
  if (m.verdict === "needs-recording") return "no recording for this version";
  if (m.verdict === "not-run") return "not run";
  return `${pct(m.withSkill)} with, ${pct(m.withoutSkill)} without (${points(m.delta)}); trigger rate ${pct(m.triggerRate)}; ${m.verdict}`;
}

function lastRun(row: EvalRow): HTMLElement | string {
  const model = row.model && `iteration ${row.model.iteration}`;
  const at = row.model?.at ?? row.routing?.at;
  return el("span", {}, when(at), model ? ` (${model})` : row.routing ? ` (iteration ${row.routing.iteration})` : "");
}

function workspaceLine(view: EvalsView): HTMLElement {
  return el(
    "p",
    { class: "meta" },
    "Workspace ",
    code(view.workspace),
    view.configured ? " (eval.workspace)" : " (the default; eval.workspace names another)",
    `: ${view.iterations} iteration${view.iterations === 1 ? "" : "s"}.`,
  );
}

/** The Evals view's sections: the results, worst first; the skills not run; what was skipped. */
export function evalsPage(view: EvalsView): (HTMLElement | false)[] {
  return [
    el("h2", {}, "Evals"),
    workspaceLine(view),
    el("p", { class: "hint" }, PROXY, " Model runs compare the skill with no skill (the baseline)."),
    el(
      "section",
      { "aria-label": "Eval results", class: "sub" },
      el("h3", {}, "Last results, worst first"),
      view.results.length === 0
        ? el(
            "p",
            {},
            "No results yet: run ",
            code("skill-central eval"),
            view.configured ? "" : " with --workspace or eval.workspace set",
            " to write some.",
          )
        : table(
            "Eval results",
            [
              { title: "Skill" },
              { title: "Standing" },
              { title: "Routing (proxy)" },
              { title: "Model run" },
              { title: "Last run" },
            ],
            view.results.map((r) => [
              r.served ? skillLink(r.id) : `${r.id} (not served)`,
              standing(r),
              r.routing ? routingCell(r.routing) : "–",
              r.model ? modelCell(r.model) : "–",
              lastRun(r),
            ]),
          ),
    ),
    el(
      "section",
      { "aria-label": "Not run", class: "sub" },
      el("h3", {}, "Not run"),
      view.notRun.length === 0
        ? el("p", {}, "Every skill with a trigger set or test cases has results.")
        : [
            el("p", {}, "These skills have a trigger set or test cases and no results in the workspace."),
            table(
              "Not run",
              [{ title: "Skill" }, { title: "Has" }],
              view.notRun.map((s) => [
                skillLink(s.id),
                [s.triggerSet && "a trigger set", s.testCases && "test cases"].filter(Boolean).join(" and "),
              ]),
            ),
          ],
    ),
    view.skipped.length > 0 &&
      el(
        "section",
        { "aria-label": "Skipped results files", class: "sub" },
        el("h3", {}, "Skipped results files"),
        el(
          "ul",
          { class: "skipped" },
          view.skipped.map((s) =>
            el("li", { class: "problem warning" }, code(place(s.file, s.line, s.column)), ` ${s.message}`),
          ),
        ),
      ),
  ];
}

/** The Overview's line: how many skills have results, how many stand badly, how many never ran. */
export function evalsOverviewSection(view: EvalsView): HTMLElement {
  const count = (s: EvalStanding) => view.results.filter((r) => r.standing === s).length;
  const parts = [
    `${count("worse")} worse than without the skill`,
    `${count("under-threshold")} under a threshold`,
    `${count("needs-recording")} needing a new recording`,
  ];
  return el(
    "section",
    { "aria-label": "Evals", class: "sub" },
    el("h3", {}, "Evals"),
    el(
      "p",
      {},
      el("strong", { class: "figure" }, `${view.results.length} skill${view.results.length === 1 ? "" : "s"}`),
      ` with results: ${parts.join(", ")}; ${view.notRun.length} not run. `,
      el("a", { href: "#/evals" }, "See every skill's last results"),
      ".",
    ),
  );
}

function routingPart(r: RoutingEval): HTMLElement[] {
  return [
    el("h4", {}, "Routing (a proxy)"),
    el(
      "p",
      {},
      r.reachable
        ? `Recall@1 ${pct(r.recallAt1)}, recall@3 ${pct(r.recallAt3)} over ${r.positives} should-trigger queries; ${r.falseFires} false fire${r.falseFires === 1 ? "" : "s"} over ${r.negatives} should-not.`
        : `Not reachable by ${r.client ?? "the client"} under its plan: every should-trigger query is a miss.`,
      r.minRecall !== undefined ? ` --min-recall ${pct(r.minRecall)}.` : "",
    ),
    r.wonInstead.length > 0 ? el("p", {}, `Won instead: ${wonText(r)}.`) : el("p", {}, "Nothing else won its queries."),
    el(
      "p",
      { class: "meta" },
      `Iteration ${r.iteration}, `,
      when(r.at),
      r.client !== undefined ? ` · as ${r.client} reaches the catalog` : " · over every skill a model may use",
    ),
  ];
}

function modelPart(m: ModelEval): HTMLElement[] {
  const who = [m.model, m.provider && `via ${m.provider}`, m.client && `as ${m.client}`].filter(Boolean).join(" ");
  return [
    el("h4", {}, "Model run"),
    m.verdict === "needs-recording" || m.verdict === "not-run"
      ? el(
          "p",
          {},
          m.verdict === "needs-recording"
            ? "No recording for this version of the skill: replay skipped it. Record the run again."
            : "The run did not run this skill.",
        )
      : el(
          "p",
          {},
          `Pass rate ${pct(m.withSkill)} with the skill, ${pct(m.withoutSkill)} without (${points(m.delta)}); `,
          `trigger rate ${pct(m.triggerRate)}`,
          m.threshold !== undefined ? ` (threshold ${pct(m.threshold)})` : "",
          `; verdict: ${m.verdict}.`,
        ),
    el(
      "p",
      { class: "meta" },
      `Iteration ${m.iteration}, `,
      when(m.at),
      who !== "" ? ` · ${who}` : "",
      ` · ${m.evalsRun} eval${m.evalsRun === 1 ? "" : "s"}`,
      m.runsPerConfiguration !== undefined ? `, ${m.runsPerConfiguration} runs each` : "",
      m.replayed ? " · replayed from a recording" : "",
      m.errors > 0 ? ` · ${m.errors} run${m.errors === 1 ? "" : "s"} failed` : "",
    ),
  ];
}

/** A skill's Evals section: its last routing and model results, or why it has none. */
export function skillEvalsSection(id: string, view: EvalsView | undefined): HTMLElement {
  const row = view?.results.find((r) => r.id === id);
  const notRun = view?.notRun.find((s) => s.id === id);
  return el(
    "section",
    { "aria-label": "Evals", class: "sub" },
    el("h3", {}, "Evals"),
    row === undefined
      ? el(
          "p",
          {},
          notRun
            ? "Not run: it has a trigger set or test cases and no results in the eval workspace."
            : "No results, and no trigger set or test cases (docs/eval.md).",
        )
      : [
          row.why !== undefined
            ? el("p", { "aria-label": "Standing" }, el("strong", { class: `standing-${row.standing}` }, row.why))
            : undefined,
          row.routing ? routingPart(row.routing) : [],
          row.model ? modelPart(row.model) : [],
          el("p", {}, el("a", { href: "#/evals" }, "Every skill's last results")),
        ].flat(),
  );
}
