/** The page's lists: the skills a page at a time, the problems by file, and what a client gets and costs. */
import { byId, el, place, replaceWith } from "./dom.ts";
import { costSection, verdictLabel } from "./insights-view.ts";
import type { ClientView, CostView, ProblemGroup, SkillRow } from "../wire.ts";

/** Rows per page of the skill list: a page of links stays quick to draw and to tab through at any count. */
export const PAGE_SIZE = 100;

export function renderSkillList(rows: readonly SkillRow[], page: number, selected: string | undefined): void {
  const list = byId<HTMLUListElement>("skills");
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const first = Math.min(page, pages - 1) * PAGE_SIZE;
  const shown = rows.slice(first, first + PAGE_SIZE);
  replaceWith(
    list,
    shown.map((row) => {
      const link = el("a", { href: `#/skill/${encodeURIComponent(row.id)}` }, row.id);
      if (row.id === selected) link.setAttribute("aria-current", "page");
      const where = `${row.kind} · ${row.layer}${row.shadows > 0 ? ` · shadows ${row.shadows}` : ""} — ${row.description}`;
      const audit =
        row.audit !== undefined &&
        row.audit !== "pass" &&
        el("span", { class: `badge verdict-${row.audit}` }, verdictLabel(row.audit));
      return el(
        "li",
        {},
        el("div", { class: "row-head" }, link, audit),
        el("small", { title: row.description }, where),
      );
    }),
  );
  byId("count").textContent =
    rows.length === 0
      ? "No skill matches."
      : `${first + 1}–${first + shown.length} of ${rows.length} skill${rows.length === 1 ? "" : "s"}`;
  byId<HTMLButtonElement>("prev").disabled = first === 0;
  byId<HTMLButtonElement>("next").disabled = first + PAGE_SIZE >= rows.length;
}

/** Each problem reads `file:line:col`, then the message and the fix, grouped by file. */
export function renderProblems(groups: readonly ProblemGroup[], reloadError: string | undefined): void {
  const total = groups.reduce((n, g) => n + g.problems.length, 0);
  const items = groups.map((group) =>
    el(
      "div",
      {},
      el("h3", {}, group.file || "(no file)"),
      el(
        "ul",
        {},
        group.problems.map((p) =>
          el(
            "li",
            { class: `problem ${p.severity}` },
            el("code", {}, place(group.file, p.line, p.column)),
            " ",
            el("span", { class: `badge sev-${p.severity}` }, p.severity),
            `: ${p.message}`,
            p.hint !== undefined && el("span", { class: "fix" }, ` — fix: ${p.hint}`),
          ),
        ),
      ),
    ),
  );
  replaceWith(
    byId("problem-list"),
    reloadError ? [el("p", { class: "error" }, reloadError)] : [],
    total === 0 ? el("p", {}, "No problems.") : el("p", {}, `${total} finding${total === 1 ? "" : "s"}`),
    items,
  );
}

function namedList(title: string, items: readonly { name: string; description: string }[]): HTMLElement {
  return el(
    "div",
    {},
    el("h3", {}, `${title} (${items.length})`),
    items.length === 0
      ? el("p", {}, "None.")
      : el(
          "ul",
          { "aria-label": title },
          items.map((i) => el("li", {}, el("code", {}, i.name), ` — ${i.description}`)),
        ),
  );
}

export function renderClient(view: ClientView | undefined, cost: CostView | undefined): void {
  const section = byId("client-view");
  if (!view) {
    section.replaceChildren();
    return;
  }
  const shown =
    view.promptsShown === "shown"
      ? "shows prompts"
      : view.promptsShown === "not-shown"
        ? "does not show prompts (tools only)"
        : "says nothing about prompts";
  replaceWith(
    section,
    el("h2", {}, `As ${view.label} sees it`),
    el(
      "p",
      {},
      `clientInfo.name: ${view.name ?? "(none)"}; ${shown}; ${view.capped ? `tool cap ${view.toolCap}` : "no tool cap"}. `,
      `Plan: ${view.plan.why}.`,
    ),
    cost ? [costSection(cost)] : [],
    namedList("Tools", view.tools),
    view.promptsShown === "not-shown"
      ? el("p", {}, `Prompts: none shown (the server lists ${view.prompts.length}; this client does not show them).`)
      : namedList("Prompts", view.prompts),
    el("h3", {}, "Instructions"),
    el("pre", { "aria-label": "Instructions" }, view.instructions),
    view.instructionsBeforeLoad === undefined
      ? []
      : [
          el(
            "p",
            {},
            "Answered before the skills load (over stdio its initialize always is), this client gets these instead:",
          ),
          el("pre", { "aria-label": "Instructions before the skills load" }, view.instructionsBeforeLoad),
        ],
  );
}
