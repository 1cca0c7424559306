/**
 * The board page's entry: its state, the load it draws (list, problems, the open skill and
 * client), the URL that names the view (url-state.ts), and the live feed that redraws it.
 */
import { localMidnight, localTime } from "./dates.ts";
import { byId, el, getJson, replaceWith } from "./dom.ts";
import { evalsOverviewSection, evalsPage } from "./evals-view.ts";
import { unusedSection } from "./insights-view.ts";
import { PAGE_SIZE, renderClient, renderProblems, renderSkillList } from "./lists.ts";
import { governanceSections, costsSection, layersSection, mostUsedSection, recentSection } from "./overview-view.ts";
import { showSkill } from "./skill-view.ts";
import { setUpTheme } from "./theme.ts";
import { hashOf, parseHash, type UrlView } from "./url-state.ts";
import type {
  BoardSummary,
  ClientView,
  CostView,
  IdeSetup,
  SkillPage,
  SkillRow,
  SkillUsageView,
  UsageOverview,
} from "../wire.ts";

/** What the page shows now; every load replaces `summary`, the rest is the person's (and the URL's). */
const view = {
  summary: undefined as BoardSummary | undefined,
  /** The search's ranking (ids), or undefined for every skill by id. */
  ranked: undefined as string[] | undefined,
  page: 0,
  selected: undefined as string | undefined,
  /** The Evals view is shown (when no skill is). */
  evals: false,
  /** The client picked, kept here as well: the URL may name it before the list of clients arrives. */
  client: "",
  allProblems: false,
};

/** The view as the URL names it. */
function urlView(): UrlView {
  return {
    skill: view.selected,
    ...(view.evals && { evals: true }),
    client: view.client,
    audit: byId<HTMLSelectElement>("audit-filter").value,
    query: byId<HTMLInputElement>("search").value,
    allProblems: view.allProblems,
  };
}

/**
 * A choice was made: a new history entry names it (back undoes it). The entry left behind is
 * first written in full, so going back to it restores its choices rather than keeping these.
 */
function pushView(before: UrlView): void {
  history.replaceState(null, "", hashOf(before));
  history.pushState(null, "", hashOf(urlView()));
}

function rows(): SkillRow[] {
  const all = view.summary?.skills ?? [];
  // While a new load's audit is on its way the filter is hidden, and kept for when it arrives.
  const verdict = byId("audit-filter-field").hidden ? "" : byId<HTMLSelectElement>("audit-filter").value;
  const shown = verdict === "" ? all : all.filter((r) => r.audit === verdict);
  if (view.ranked === undefined) return shown;
  const byId_ = new Map(shown.map((r) => [r.id, r]));
  return view.ranked.flatMap((id) => byId_.get(id) ?? []);
}

/**
 * The audit filter shows once the load has verdicts (`skill-central audit`, worked out after the
 * load is shown); until then it stays hidden, and what was picked holds for when they arrive.
 */
function fillAuditFilter(summary: BoardSummary): void {
  byId("audit-filter-field").hidden = !summary.skills.some((r) => r.audit !== undefined);
}

const drawList = () => renderSkillList(rows(), view.page, view.selected);

let searchSeq = 0;
async function search(): Promise<void> {
  const query = byId<HTMLInputElement>("search").value.trim();
  const seq = ++searchSeq;
  const ranked =
    query === "" ? undefined : (await getJson<{ ids: string[] }>(`/api/search?q=${encodeURIComponent(query)}`))?.ids;
  if (seq !== searchSeq) return;
  view.ranked = ranked;
  view.page = 0;
  drawList();
}

/**
 * The home view: what is in the catalog and whether it is healthy (overview-view.ts), and the
 * skills nobody used lately. Each client's cost is counted by the server once per load.
 */
async function showHome(): Promise<void> {
  const section = byId("skill");
  section.setAttribute("aria-label", "Overview");
  delete section.dataset.skill;
  const summary = view.summary;
  const clients = summary?.clients ?? [];
  const [usage, costs] = await Promise.all([
    getJson<UsageOverview>("/api/usage"),
    Promise.all(clients.map((c) => getJson<CostView>(`/api/cost/${encodeURIComponent(c.key)}`))),
  ]);
  if (view.selected !== undefined) return;
  replaceWith(
    section,
    el("h2", {}, "Overview"),
    el("p", { class: "hint" }, "Pick a skill to see its document, its form, its examples and its uses."),
    summary ? [layersSection(summary), ...governanceSections(summary.governance)] : [],
    summary ? [costsSection(clients, costs)] : [],
    usage ? [mostUsedSection(usage)] : [],
    summary ? [evalsOverviewSection(summary.evals)] : [],
    summary ? [recentSection(summary)] : [],
    usage ? [unusedSection(usage)] : [],
  );
}

/** Every skill's last eval results, worst first (evals-view.ts): from the summary, nothing more to ask. */
function showEvals(): void {
  const section = byId("skill");
  section.setAttribute("aria-label", "Evals");
  delete section.dataset.skill;
  if (view.summary) replaceWith(section, evalsPage(view.summary.evals));
}

/** Which of the header's views is shown, for people and screen readers. */
function markView(): void {
  const current = view.selected !== undefined ? undefined : view.evals ? "evals-link" : "overview-link";
  for (const id of ["overview-link", "evals-link"])
    if (id === current) byId(id).setAttribute("aria-current", "page");
    else byId(id).removeAttribute("aria-current");
}

async function showSelected(): Promise<void> {
  markView();
  const id = view.selected;
  if (id === undefined) return view.evals ? showEvals() : showHome();
  const path = encodeURIComponent(id);
  const [skill, usage] = await Promise.all([
    getJson<SkillPage>(`/api/skill/${path}`),
    // Buckets from the viewer's midnight 29 days ago: each bar is one of the viewer's days.
    getJson<SkillUsageView>(`/api/usage/${path}?from=${localMidnight(29)}`),
  ]);
  if (view.selected !== id) return;
  await showSkill(skill, id, usage, view.summary?.governance, view.summary?.evals);
}

async function showClient(): Promise<void> {
  const key = view.client;
  if (key === "") return renderClient(undefined, undefined);
  const path = encodeURIComponent(key);
  // The cost counts tokens (the server loads its tokenizer on the first ask): only for a picked client.
  const [client, cost, setup] = await Promise.all([
    getJson<ClientView>(`/api/client/${path}`),
    getJson<CostView>(`/api/cost/${path}`),
    getJson<IdeSetup>(`/api/install/${path}`),
  ]);
  if (view.client === key) renderClient(client, cost, setup);
}

function fillClients(summary: BoardSummary): void {
  const select = byId<HTMLSelectElement>("client");
  if (select.options.length === 0)
    replaceWith(
      select,
      el("option", { value: "" }, "(pick a client)"),
      summary.clients.map((c) => el("option", { value: c.key }, c.label)),
    );
  // A client the URL named that the board does not know reads as none.
  if (!summary.clients.some((c) => c.key === view.client)) view.client = "";
  select.value = view.client;
}

/** The header's status in words: how many skills, and whether they are up to date. */
function statusText(summary: BoardSummary): string {
  const skills = `${summary.skills.length} skill${summary.skills.length === 1 ? "" : "s"}`;
  const at = localTime(Date.now()).slice(11);
  return summary.reloadError
    ? `${skills} · the last change on disk could not be loaded: showing the last good version`
    : `${skills} · up to date (checked ${at})`;
}

/** Draws a load: list, problems, the open skill and client; then tells scripts which version is on screen. */
async function refresh(): Promise<void> {
  const summary = await getJson<BoardSummary>("/api/summary");
  if (!summary) return;
  view.summary = summary;
  fillClients(summary);
  fillAuditFilter(summary);
  const status = byId("status");
  status.textContent = statusText(summary);
  status.classList.toggle("stale", summary.reloadError !== undefined);
  renderProblems(summary.problems, summary.reloadError, view.allProblems);
  if (byId<HTMLInputElement>("search").value.trim() !== "") await search();
  else drawList();
  await Promise.all([showSelected(), showClient()]);
  document.body.dataset.version = String(summary.version);
  window.dispatchEvent(new CustomEvent("board:updated", { detail: summary.version }));
}

/**
 * Shows the view the URL names. A hash the board wrote sets every choice (a shared link, back
 * and forward); a plain link to a skill keeps the choices on screen, and the URL is written in
 * full when any of them is not its default, so it can be shared as it is.
 */
function route(): void {
  const { skill, evals, choices } = parseHash(location.hash);
  view.selected = skill;
  view.evals = evals === true;
  const before = { client: view.client, query: byId<HTMLInputElement>("search").value, all: view.allProblems };
  if (choices) {
    view.client = choices.client;
    view.allProblems = choices.allProblems;
    byId<HTMLSelectElement>("audit-filter").value = choices.audit;
    byId<HTMLInputElement>("search").value = choices.query;
    if (view.summary) fillClients(view.summary);
  } else {
    const full = hashOf(urlView());
    if (!full.endsWith("?")) history.replaceState(null, "", full);
  }
  if (view.summary && before.all !== view.allProblems)
    renderProblems(view.summary.problems, view.summary.reloadError, view.allProblems);
  if (before.client !== view.client) void showClient();
  if (before.query !== byId<HTMLInputElement>("search").value) void search();
  else drawList();
  void showSelected();
}

function listen(): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Typing is not a step back and forward goes through: the entry is rewritten as the search changes.
  byId("search").addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      history.replaceState(null, "", hashOf(urlView()));
      void search();
    }, 80);
  });
  byId("client").addEventListener("change", () => {
    const before = urlView();
    view.client = byId<HTMLSelectElement>("client").value;
    pushView(before);
    void showClient();
  });
  byId("audit-filter").addEventListener("change", () => {
    pushView({ ...urlView(), audit: new URLSearchParams(location.hash.split("?")[1] ?? "").get("audit") ?? "" });
    view.page = 0;
    drawList();
  });
  byId("all-problems").addEventListener("change", () => {
    const before = urlView();
    view.allProblems = byId<HTMLInputElement>("all-problems").checked;
    pushView(before);
    if (view.summary) renderProblems(view.summary.problems, view.summary.reloadError, view.allProblems);
  });
  byId("prev").addEventListener("click", () => {
    view.page = Math.max(0, view.page - 1);
    drawList();
  });
  byId("next").addEventListener("click", () => {
    view.page = Math.min(Math.ceil(rows().length / PAGE_SIZE) - 1, view.page + 1);
    drawList();
  });
  window.addEventListener("hashchange", route);
  // "/" jumps to the search box, as on most sites with one.
  document.addEventListener("keydown", (event) => {
    if (
      event.key === "/" &&
      !(event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement)
    ) {
      event.preventDefault();
      byId("search").focus();
    }
  });
  let shown = 0;
  let drawing = Promise.resolve();
  const events = new EventSource("/api/events");
  events.addEventListener("load", (event) => {
    const { version } = JSON.parse((event as MessageEvent<string>).data) as { version: number };
    if (version <= shown) return;
    shown = version;
    drawing = drawing.then(refresh).catch((error: unknown) => {
      byId("status").textContent = `cannot update: ${String(error)}`;
    });
  });
  events.addEventListener("error", () => {
    byId("status").textContent = "disconnected from the board (is it still running?)";
  });
}

/** Whether Problems is open: the person's choice, kept across visits (open until they close it). */
function keepProblemsOpen(): void {
  const details = byId<HTMLDetailsElement>("problem-details");
  const KEY = "skill-central.board.problems";
  try {
    details.open = localStorage.getItem(KEY) !== "closed";
  } catch {
    // Storage refused (a private window's policy): open, as by default.
  }
  details.addEventListener("toggle", () => {
    try {
      localStorage.setItem(KEY, details.open ? "open" : "closed");
    } catch {
      // Not kept: the panel still opens and closes.
    }
  });
}

setUpTheme();
keepProblemsOpen();
listen();
route();
