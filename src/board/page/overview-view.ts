/**
 * The Overview: what is in the catalog and whether it is healthy, at a glance. Skills per layer
 * (whose each layer is) with the audit's blocked and warned counts, what the admin log blocks,
 * what awaits approval and the log's newest entries, what
 * each client's catalog costs against its budget, the skills used most, and the files changed
 * last. Every figure is the server's (the load, the audit, `budget`'s count, the usage store).
 */
import { localTime } from "./dates.ts";
import { el, table } from "./dom.ts";
import type { BoardSummary, ClientChoice, CostView, GovernanceView, UsageOverview } from "../wire.ts";

const n = (value: number) => value.toLocaleString("en-US");
const skillLink = (id: string) => el("a", { href: `#/skill/${encodeURIComponent(id)}` }, id);
/** How many files "Recently changed" names. */
const RECENT_SHOWN = 8;

export function layersSection(summary: BoardSummary): HTMLElement {
  const count = (layer: string, audit?: string) =>
    summary.skills.filter((r) => r.layer === layer && (audit === undefined || r.audit === audit)).length;
  const audited = summary.skills.some((r) => r.audit !== undefined);
  const blocked = summary.skills.filter((r) => r.audit === "block").length;
  const warned = summary.skills.filter((r) => r.audit === "warn").length;
  const layers = summary.layers.filter((l) => count(l.name) > 0 || l.owned);
  const serving = layers.filter((l) => count(l.name) > 0).length;
  return el(
    "section",
    { "aria-label": "Skills per layer", class: "sub" },
    el("h3", {}, "What is in the catalog"),
    el(
      "p",
      {},
      el("strong", { class: "figure" }, `${n(summary.skills.length)} skill${summary.skills.length === 1 ? "" : "s"}`),
      ` served from ${n(serving)} layer${serving === 1 ? "" : "s"}`,
      audited
        ? `; the audit blocked ${n(blocked)} and warned about ${n(warned)}.`
        : "; the audit's verdicts are on their way.",
    ),
    table(
      "Skills per layer",
      [
        { title: "Layer" },
        { title: "Whose" },
        { title: "Skills", numeric: true },
        { title: "Blocked", numeric: true },
        { title: "Warned", numeric: true },
      ],
      layers.map((l) => [
        l.name,
        l.owned ? "this project's" : "upstream (fixed at its source)",
        n(count(l.name)),
        audited ? n(count(l.name, "block")) : "…",
        audited ? n(count(l.name, "warn")) : "…",
      ]),
    ),
  );
}

const code = (text: string) => el("code", {}, text);
const when = (iso: string) => el("time", { datetime: iso }, localTime(Date.parse(iso)));

/**
 * Governance (docs/governance.md): the skills the admin log blocks, those awaiting approval and
 * the log's newest entries, or one line saying governance is off. Every figure is the load's.
 */
export function governanceSections(governance: GovernanceView): HTMLElement[] {
  if (!governance.on)
    return [
      el(
        "section",
        { "aria-label": "Governance", class: "sub", "data-hook": "governance" },
        el("h3", {}, "Governance"),
        el(
          "p",
          {},
          // Named, not linked: the board serves no docs and the package names no repository URL.
          "Governance is off: no policy.approvers is configured, so nothing is blocked or awaits approval (see ",
          code("docs/governance.md"),
          ").",
        ),
      ),
    ];
  const { blocked, awaiting, log } = governance;
  return [
    el(
      "section",
      { "aria-label": "Blocked", class: "sub", "data-hook": "governance" },
      el("h3", {}, "Blocked"),
      blocked.length === 0
        ? el("p", {}, "No skill is blocked.")
        : table(
            "Blocked",
            [{ title: "Skill" }, { title: "Version" }, { title: "Blocked by" }, { title: "When" }, { title: "Reason" }],
            blocked.map((b) => [
              b.id,
              b.digest !== undefined ? code(b.digest) : "every version",
              b.principal,
              when(b.at),
              b.reason,
            ]),
          ),
    ),
    el(
      "section",
      { "aria-label": "Awaiting approval", class: "sub" },
      el("h3", {}, "Awaiting approval"),
      awaiting.length === 0
        ? el("p", {}, "Nothing awaits approval.")
        : table(
            "Awaiting approval",
            [{ title: "Skill" }, { title: "Layer" }, { title: "Digest" }, { title: "Why" }],
            awaiting.map((a) => [a.id, a.layer, a.digest !== undefined ? code(a.digest) : "unknown", a.why]),
          ),
    ),
    el(
      "section",
      { "aria-label": "Admin log (latest)", class: "sub" },
      el("h3", {}, "Admin log (latest)"),
      log.length === 0
        ? el("p", {}, "The admin log is empty.")
        : table(
            "Admin log (latest)",
            [
              { title: "When" },
              { title: "Who" },
              { title: "Action" },
              { title: "Skill" },
              { title: "Digest" },
              { title: "Reason" },
              { title: "Signature" },
            ],
            log.map((e) => [
              when(e.at),
              e.principal,
              e.action,
              e.skill,
              e.digest !== undefined ? code(e.digest) : "every version",
              e.reason,
              e.verified
                ? "verified"
                : el(
                    "strong",
                    { class: "over-text" },
                    `NOT VERIFIED${e.problem !== undefined ? `: ${e.problem}` : ""}`,
                  ),
            ]),
          ),
    ),
  ];
}

function costStatus(cost: CostView): string {
  if (cost.limit === null) return "no known budget";
  const share = `${Math.round((cost.sent.tokens / cost.limit.tokens) * 100)}% of ${n(cost.limit.tokens)}`;
  const whose = cost.limit.source === "tokenBudget" ? "tokenBudget" : "published budget";
  return `${cost.limit.over ? "over budget" : "within budget"}: ${share} (${whose})`;
}

export function costsSection(clients: readonly ClientChoice[], costs: readonly (CostView | undefined)[]): HTMLElement {
  return el(
    "section",
    { "aria-label": "Cost per client", class: "sub" },
    el("h3", {}, "What each client's catalog costs"),
    table(
      "Cost per client",
      [{ title: "Client" }, { title: "Tokens", numeric: true }, { title: "Budget" }],
      clients.flatMap((c, i) => {
        const cost = costs[i];
        return cost ? [[c.label, n(cost.sent.tokens), costStatus(cost)]] : [];
      }),
      (i) => (costs.filter((c) => c !== undefined)[i]?.limit?.over ? "over" : ""),
    ),
  );
}

export function mostUsedSection(usage: UsageOverview): HTMLElement {
  const section = el(
    "section",
    { "aria-label": "Most used", class: "sub" },
    el("h3", {}, `Most used in ${usage.days} days`),
  );
  if (!usage.recording) section.append(el("p", {}, "Usage recording is off (usage: { store: off })."));
  else if (usage.problem !== undefined)
    section.append(el("p", { class: "problem warning", role: "status" }, usage.problem));
  else if (usage.mostUsed.length === 0)
    section.append(el("p", {}, `No skill was used in the last ${usage.days} days.`));
  else
    section.append(
      table(
        "Most used",
        [{ title: "Skill" }, { title: "Uses", numeric: true }, { title: "Refused", numeric: true }],
        usage.mostUsed.map((u) => [skillLink(u.id), n(u.uses), n(u.refused)]),
      ),
    );
  return section;
}

export function recentSection(summary: BoardSummary): HTMLElement {
  const recent = summary.skills
    .filter((r) => r.changed !== undefined)
    .sort((a, b) => b.changed! - a.changed! || (a.id < b.id ? -1 : 1))
    .slice(0, RECENT_SHOWN);
  return el(
    "section",
    { "aria-label": "Recently changed", class: "sub" },
    el("h3", {}, "Recently changed"),
    recent.length === 0
      ? el("p", {}, "No file dates known.")
      : table(
          "Recently changed",
          [{ title: "Skill" }, { title: "Layer" }, { title: "Changed" }],
          recent.map((r) => [
            skillLink(r.id),
            r.layer,
            el("time", { datetime: new Date(r.changed!).toISOString() }, localTime(r.changed!)),
          ]),
        ),
  );
}
