/** The page's lists: the skills a page at a time, the problems by file, and what a client gets and costs. */
import { byId, el, place, replaceWith } from "./dom.ts";
import { costSection, verdictLabel } from "./insights-view.ts";
import { copyButton } from "./skill-view.ts";
import type { ClientView, CostView, IdeSetup, ProblemGroup, SkillRow } from "../wire.ts";

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
  // One page needs no pager.
  byId("pager").hidden = pages === 1;
}

const findings = (count: number) => `${count} finding${count === 1 ? "" : "s"}`;
const countOf = (groups: readonly ProblemGroup[]) => groups.reduce((n, g) => n + g.problems.length, 0);

/**
 * Each problem reads `file:line:col`, then the message and the fix, grouped by file: by default
 * only those in layers this project owns (what its CI judges); `all` shows every layer's.
 */
export function renderProblems(every: readonly ProblemGroup[], reloadError: string | undefined, all: boolean): void {
  const groups = all ? every : every.filter((g) => g.owned);
  const hidden = countOf(every.filter((g) => !g.owned));
  const total = countOf(groups);
  byId("problem-summary").textContent = all
    ? `${findings(total)} in every layer`
    : `${findings(total)} in the layers this project owns`;
  byId<HTMLInputElement>("all-problems").checked = all;
  byId("all-problems-label").textContent =
    hidden === 0
      ? "Show problems in every layer (the others have none)"
      : `Show problems in every layer (${findings(hidden)} in layers fixed upstream)`;
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
    total === 0 ? el("p", {}, "No problems.") : [],
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

/** "Add to my IDE": the install command to run in the project, and the entry it writes, each with a Copy button. */
function setupSection(setup: IdeSetup): HTMLElement {
  return el(
    "section",
    { "aria-label": "Add to my IDE", class: "sub setup" },
    el("h3", {}, `Add to my IDE: ${setup.label}`),
    setup.command !== undefined && [
      el("p", {}, "Run this in the project (it shows the change and asks before writing):"),
      el(
        "div",
        { class: "doc-head" },
        el("pre", { "aria-label": "Install command" }, setup.command),
        copyButton(setup.command, "Copy the install command"),
      ),
    ],
    setup.snippet !== undefined && [
      el(
        "p",
        {},
        "Or add this entry by hand",
        setup.file !== undefined ? [" to ", el("code", {}, setup.file)] : [],
        ":",
      ),
      el(
        "div",
        { class: "doc-head" },
        el("pre", { "aria-label": "Config entry" }, setup.snippet),
        copyButton(setup.snippet, "Copy the config entry"),
      ),
    ],
    setup.note !== undefined && el("p", { class: "muted" }, setup.note),
  );
}

export function renderClient(view: ClientView | undefined, cost: CostView | undefined, setup?: IdeSetup): void {
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
    setup ? [setupSection(setup)] : [],
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
