/** The board page's entry: its state, the load it draws (list, problems, the open skill and client), and the live feed that redraws it. */
import { byId, el, getJson, replaceWith } from "./dom.ts";
import { unusedSection } from "./insights-view.ts";
import { PAGE_SIZE, renderClient, renderProblems, renderSkillList } from "./lists.ts";
import { showSkill } from "./skill-view.ts";
import { setUpTheme } from "./theme.ts";
import type {
  BoardSummary,
  ClientView,
  CostView,
  SkillPage,
  SkillRow,
  SkillUsageView,
  UsageOverview,
} from "../wire.ts";

/** What the page shows now; every load replaces `summary`, the rest is the person's. */
const view = {
  summary: undefined as BoardSummary | undefined,
  /** The search's ranking (ids), or undefined for every skill by id. */
  ranked: undefined as string[] | undefined,
  page: 0,
  selected: undefined as string | undefined,
};

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

/** The home view: what the board is, and the skills nobody used lately (read from the usage store). */
async function showHome(): Promise<void> {
  const section = byId("skill");
  section.setAttribute("aria-label", "Overview");
  delete section.dataset.skill;
  const usage = await getJson<UsageOverview>("/api/usage");
  if (view.selected !== undefined) return;
  replaceWith(
    section,
    el("h2", {}, "Overview"),
    el("p", { class: "hint" }, "Pick a skill to see its document, its form, its examples and its uses."),
    usage ? [unusedSection(usage)] : [],
  );
}

async function showSelected(): Promise<void> {
  const id = view.selected;
  if (id === undefined) return showHome();
  const path = encodeURIComponent(id);
  const [skill, usage] = await Promise.all([
    getJson<SkillPage>(`/api/skill/${path}`),
    getJson<SkillUsageView>(`/api/usage/${path}`),
  ]);
  if (view.selected !== id) return;
  await showSkill(skill, id, usage);
}

async function showClient(): Promise<void> {
  const key = byId<HTMLSelectElement>("client").value;
  if (key === "") return renderClient(undefined, undefined);
  const path = encodeURIComponent(key);
  // The cost counts tokens (the server loads its tokenizer on the first ask): only for a picked client.
  const [client, cost] = await Promise.all([
    getJson<ClientView>(`/api/client/${path}`),
    getJson<CostView>(`/api/cost/${path}`),
  ]);
  if (byId<HTMLSelectElement>("client").value === key) renderClient(client, cost);
}

function fillClients(summary: BoardSummary): void {
  const select = byId<HTMLSelectElement>("client");
  if (select.options.length > 0) return;
  replaceWith(
    select,
    el("option", { value: "" }, "(pick a client)"),
    summary.clients.map((c) => el("option", { value: c.key }, c.label)),
  );
}

/** Draws a load: list, problems, the open skill and client; then tells scripts which version is on screen. */
async function refresh(): Promise<void> {
  const summary = await getJson<BoardSummary>("/api/summary");
  if (!summary) return;
  view.summary = summary;
  fillClients(summary);
  fillAuditFilter(summary);
  const status = byId("status");
  status.textContent = `${summary.skills.length} skills · live (load ${summary.version})${summary.reloadError ? " · last reload failed" : ""}`;
  status.classList.toggle("stale", summary.reloadError !== undefined);
  renderProblems(summary.problems, summary.reloadError);
  if (byId<HTMLInputElement>("search").value.trim() !== "") await search();
  else drawList();
  await Promise.all([showSelected(), showClient()]);
  document.body.dataset.version = String(summary.version);
  window.dispatchEvent(new CustomEvent("board:updated", { detail: summary.version }));
}

function route(): void {
  const match = /^#\/skill\/(.+)$/.exec(location.hash);
  view.selected = match ? decodeURIComponent(match[1]!) : undefined;
  drawList();
  void showSelected();
}

function listen(): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  byId("search").addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void search(), 80);
  });
  byId("client").addEventListener("change", () => void showClient());
  byId("audit-filter").addEventListener("change", () => {
    view.page = 0;
    drawList();
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

setUpTheme();
listen();
route();
