/**
 * The wave's views: what the picked client's catalog costs in tokens against its budget, the
 * skills unused lately, a skill's uses over time (an SVG drawn here: a month of daily bars needs
 * no charting library), and a skill's audit verdict with its findings.
 */
import { localDay, localTime } from "./dates.ts";
import { type Cell, type Column, el, place, table } from "./dom.ts";
import type { CostView, SkillAudit, SkillUsageView, UsageOverview } from "../wire.ts";

const SVG = "http://www.w3.org/2000/svg";
const n = (value: number) => value.toLocaleString("en-US");
const skillLink = (id: string) => el("a", { href: `#/skill/${encodeURIComponent(id)}` }, id);

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/** A bar of `used` against `limit`, as a meter screen readers announce. */
function meter(label: string, used: number, limit: number, over: boolean): HTMLElement {
  const fill = el("span", {});
  // Through the CSSOM, not a style attribute: the page's Content-Security-Policy allows no inline style.
  fill.style.width = `${(Math.min(1, used / limit) * 100).toFixed(1)}%`;
  return el(
    "div",
    {
      class: `meter${over ? " over" : ""}`,
      role: "meter",
      "aria-label": label,
      "aria-valuemin": "0",
      "aria-valuemax": String(limit),
      "aria-valuenow": String(Math.min(used, limit)),
      "aria-valuetext": `${n(used)} of ${n(limit)} tokens (${Math.round((used / limit) * 100)}%)`,
    },
    fill,
  );
}

/** A heading, then its table, or what to say when there are no rows. */
function titledTable(title: string, none: string, columns: readonly Column[], rows: readonly (readonly Cell[])[]) {
  return [el("h4", {}, title), rows.length === 0 ? el("p", {}, none) : table(title, columns, rows)];
}

function costliest(cost: CostView): (HTMLElement | false)[] {
  return [
    ...titledTable(
      "Costliest skills",
      "None: this client is sent no skill by name.",
      [{ title: "Skill" }, { title: "Tokens", numeric: true }],
      cost.costliest.map((s) => [skillLink(s.id), n(s.tokens)]),
    ),
    cost.skillCount > cost.costliest.length &&
      el(
        "p",
        { class: "muted" },
        `… and ${n(cost.skillCount - cost.costliest.length)} more (skill-central budget --json lists them all).`,
      ),
  ];
}

/** The load's competing pairs; while the board still works them out, a line saying so (the page redraws when they arrive). */
function competing(cost: CostView): (HTMLElement | false)[] {
  const view = cost.competing;
  if (view.state === "computing")
    return [
      el("h4", {}, "Competing skills"),
      el("p", { class: "muted", role: "status" }, "Computing which skills compete… (shown here when done)"),
    ];
  const more = view.total - view.pairs.length;
  return [
    ...titledTable(
      "Competing skills",
      "No two skills compete for the same request.",
      [{ title: "Skills" }, { title: "Score", numeric: true }],
      view.pairs.map((p) => [[skillLink(p.a), " and ", skillLink(p.b)], p.score.toFixed(2)]),
    ),
    more > 0 &&
      el(
        "p",
        { class: "muted" },
        `… and ${view.exact ? "" : "at least "}${n(more)} more pairs (skill-central overlap lists each skill's strongest).`,
      ),
  ];
}

export function costSection(cost: CostView): HTMLElement {
  const budget = cost.limit;
  const { tokens, chars } = cost.sent;
  const whose = budget?.source === "tokenBudget" ? "tokenBudget" : "published budget, not applied";
  return el(
    "section",
    { "aria-label": "Catalog cost", class: "sub" },
    el("h3", {}, "What the catalog costs"),
    el(
      "p",
      {},
      el("strong", { class: "figure" }, `${n(tokens)} tokens`),
      ` (${n(chars)} characters, ${cost.tokenizer}) to learn the skills; plan: ${cost.plan === "full" ? "every skill listed" : "the catalog tools"}.`,
    ),
    budget === null
      ? el("p", { class: "muted" }, "No known budget for this client (set tokenBudget to give one).")
      : el(
          "div",
          {},
          meter(`Tokens against the ${whose}`, tokens, budget.tokens, budget.over),
          el(
            "p",
            { class: budget.over ? "over-text" : "muted" },
            `${Math.round((tokens / budget.tokens) * 100)}% of ${n(budget.tokens)} (${whose})${budget.over ? " — over budget" : ""}`,
          ),
        ),
    cost.whole !== undefined &&
      el(
        "p",
        {},
        `The full catalog would be ${n(cost.whole.tokens)} tokens: over tokenBudget, so this client gets the catalog.`,
      ),
    costliest(cost),
    competing(cost),
  );
}

/** A usage store that cannot be read: the server's one line (naming the file and why), as a warning. */
function storeProblem(problem: string): HTMLElement {
  return el("p", { class: "problem warning", role: "status" }, problem);
}

export function unusedSection(usage: UsageOverview): HTMLElement {
  const shown = usage.unused;
  return el(
    "section",
    { "aria-label": "Unused skills", class: "sub" },
    el("h3", {}, `Unused for ${usage.days} days`),
    !usage.recording
      ? el("p", {}, "Usage recording is off (usage: { store: off }).")
      : usage.problem !== undefined
        ? storeProblem(usage.problem)
        : usage.unusedCount === 0
          ? el("p", {}, `Every skill was used in the last ${usage.days} days.`)
          : el(
              "div",
              {},
              el(
                "p",
                {},
                `${n(usage.unusedCount)} served skill${usage.unusedCount === 1 ? "" : "s"} with no use in the last ${usage.days} days:`,
              ),
              el(
                "ul",
                { class: "chips", "aria-label": `Unused for ${usage.days} days` },
                shown.map((id) => el("li", {}, skillLink(id))),
              ),
              usage.unusedCount > shown.length &&
                el(
                  "p",
                  { class: "muted" },
                  `… and ${n(usage.unusedCount - shown.length)} more (skill-central usage lists them).`,
                ),
            ),
  );
}

const CHART = { width: 600, height: 120, pad: 4, axis: 18 };

/** Daily bars over the window; its accessible name says what it shows, with the figures. */
function usageChart(id: string, usage: SkillUsageView): SVGSVGElement {
  const total = usage.buckets.reduce((a, b) => a + b, 0);
  const peak = Math.max(1, ...usage.buckets);
  const busiest = usage.buckets.indexOf(Math.max(...usage.buckets));
  // The bucket's middle: the page asked for buckets from its local midnight (a DST day is 23 or 25 hours).
  const day = (i: number) => localDay(usage.since + i * 86_400_000 + 43_200_000);
  const name =
    `Uses of ${id} per day over the last ${usage.days} days: ${n(total)} in all` +
    (total > 0 ? `, most on ${day(busiest)} (${usage.buckets[busiest]})` : "");
  const chart = svg("svg", {
    viewBox: `0 0 ${CHART.width} ${CHART.height + CHART.axis}`,
    role: "img",
    "aria-label": name,
    class: "chart",
    preserveAspectRatio: "none",
  });
  chart.append(Object.assign(svg("title", {}), { textContent: name }));
  const slot = CHART.width / usage.buckets.length;
  chart.append(svg("line", { x1: 0, x2: CHART.width, y1: CHART.height, y2: CHART.height, class: "axis" }));
  for (const [i, uses] of usage.buckets.entries()) {
    if (uses === 0) continue;
    const h = Math.max(2, (uses / peak) * (CHART.height - CHART.pad));
    const bar = svg("rect", {
      x: i * slot + 1,
      y: CHART.height - h,
      width: Math.max(1, slot - 2),
      height: h,
      class: "bar",
    });
    bar.append(Object.assign(svg("title", {}), { textContent: `${day(i)}: ${uses}` }));
    chart.append(bar);
  }
  for (const [i, anchor] of [
    [0, "start"],
    [usage.buckets.length - 1, "end"],
  ] as const) {
    const label = svg("text", {
      x: anchor === "start" ? 0 : CHART.width,
      y: CHART.height + 14,
      "text-anchor": anchor,
      class: "tick",
    });
    label.textContent = day(i);
    chart.append(label);
  }
  return chart;
}

export function usageSection(id: string, usage: SkillUsageView | undefined): HTMLElement {
  const body: (HTMLElement | SVGElement | string | false)[] = [];
  if (!usage) body.push(el("p", {}, "No usage for this skill."));
  else if (!usage.recording) body.push(el("p", {}, "Usage recording is off (usage: { store: off })."));
  else if (usage.problem !== undefined) body.push(storeProblem(usage.problem));
  else {
    body.push(
      el(
        "p",
        {},
        el("strong", { class: "figure" }, `${n(usage.total)} use${usage.total === 1 ? "" : "s"}`),
        ` in the kept history (${usage.keepDays} days)`,
        usage.lastUsed !== undefined && `; last ${localTime(usage.lastUsed)}`,
        ".",
      ),
      usage.buckets.some((b) => b > 0)
        ? usageChart(id, usage)
        : el("p", { class: "muted" }, `No uses in the last ${usage.days} days.`),
    );
    if (usage.clients.length > 0)
      body.push(
        table(
          "Uses per client",
          [{ title: "Client" }, { title: "Uses", numeric: true }],
          usage.clients.map((c) => [c.name, n(c.uses)]),
        ),
      );
  }
  const section = el("section", { "aria-label": "Usage", class: "sub" }, el("h3", {}, "Usage"));
  for (const part of body) if (part !== false) section.append(part);
  return section;
}

const VERDICT_TEXT: Record<SkillAudit["verdict"], string> = { pass: "passed", warn: "warned", block: "blocked" };

/** A skill's audit verdict and each finding as file:line, rule, message and fix. */
export function auditSection(audit: SkillAudit): HTMLElement {
  return el(
    "section",
    { "aria-label": "Audit", class: "sub" },
    el("h3", {}, "Audit ", el("span", { class: `badge verdict-${audit.verdict}` }, VERDICT_TEXT[audit.verdict])),
    audit.findings.length === 0
      ? el("p", {}, "No findings.")
      : table(
          "Audit findings",
          [{ title: "Where" }, { title: "Rule" }, { title: "Finding" }, { title: "Fix" }],
          audit.findings.map((f) => [
            el("code", {}, place(f.file, f.line, f.column)),
            [el("code", {}, f.rule), " ", el("span", { class: `badge sev-${f.severity}` }, f.severity)],
            f.message,
            f.fix ?? "",
          ]),
          (i) => `finding ${audit.findings[i]!.severity}`,
        ),
  );
}

export const verdictLabel = (verdict: SkillAudit["verdict"]) => VERDICT_TEXT[verdict];
