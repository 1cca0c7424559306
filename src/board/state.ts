/**
 * The board's view of the served skills: the latest load (each one replaces the last whole),
 * and the answers the page asks for, each computed from that one load and the registry it
 * swapped into the server's source.
 */
import { ownedLayer } from "../config/owned-layer.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { SkillRecord } from "../load/record.ts";
import { invokePrompt, invokeTool } from "../invoke/invoke.ts";
import type { RegistrySource } from "../mcp/registry-source.ts";
import { searchIndexOf, searchSkills } from "../registry/search.ts";
import { isPlainObject } from "../skill/json-schema.ts";
import { CLIENT_CHOICES, clientByKey } from "./clients.ts";
import { clientView } from "./client-view.ts";
import type { Competing } from "./competing.ts";
import { type BoardEvals, evalsView } from "./evals.ts";
import { governanceView } from "./governance-view.ts";
import { type BoardLoad, ownsFile, problemGroups, recordsByPath, skillPage, skillRows } from "./views.ts";
import type {
  BoardSummary,
  ClientView,
  CompetingView,
  CostView,
  EvalsView,
  IdeSetup,
  RenderAnswer,
  SkillAudit,
  SkillPage,
  SkillUsageView,
  UsageOverview,
} from "./wire.ts";

interface Current {
  load: BoardLoad;
  records: Map<string, SkillRecord>;
  /** Built on first ask, once per load. */
  summary?: string;
  /** Each client's cost, counted on first ask (the tokenizer is loaded then), once per load. */
  costs: Map<string, Omit<CostView, "competing">>;
  /** The competing pairs, once worked out after the load was shown (board/competing.ts). */
  competing?: CompetingView;
  /** The Evals view of the load's eval results, built on first ask, again when they are read again. */
  evals?: EvalsView;
}

const NO_EVALS: EvalsView = { workspace: "", configured: false, iterations: 0, results: [], notRun: [], skipped: [] };

export class BoardState {
  private current: Current | undefined;
  private readonly first = Promise.withResolvers<void>();
  private reloadError: string | undefined;
  version = 0;

  constructor(
    private readonly source: RegistrySource,
    private readonly live: boolean,
    /** The project folder: where "Add to my IDE" runs `install` and which project file it names. */
    private readonly project: string = process.cwd(),
  ) {}

  /** A load is done: the page shows it from now on. */
  loaded(load: BoardLoad): void {
    this.version++;
    this.reloadError = undefined;
    this.current = { load, records: recordsByPath(load.result), costs: new Map() };
    this.first.resolve();
  }

  /**
   * The audit of a load and its competing skills arrived (they are worked out after the load is
   * on screen): the list's verdicts, the skill pages, the Problems list and the cost view show
   * them from now on. False when a newer load replaced `load`.
   */
  audited(load: BoardLoad, audits: ReadonlyMap<string, SkillAudit> | undefined, competing?: Competing): boolean {
    const current = this.current;
    if (current?.load !== load) return false;
    this.version++;
    const findings = { ...load.findings, ...(audits && { audits }) };
    if (competing) {
      findings.problems = mergeByPlace(load.findings.problems, competing.warnings);
      current.competing = competing.view;
    }
    current.load.findings = findings;
    current.summary = undefined;
    return true;
  }

  /**
   * The eval workspace was read again (it changed on disk): the summary shows the new results
   * from now on. False when a newer load replaced `load`.
   */
  evalsRead(load: BoardLoad, evals: BoardEvals): boolean {
    const current = this.current;
    if (current?.load !== load) return false;
    this.version++;
    load.evals = evals;
    current.evals = undefined;
    current.summary = undefined;
    return true;
  }

  /** The load on screen, once there is one. */
  shown(): BoardLoad | undefined {
    return this.current?.load;
  }

  /** Whether `load` is the one shown. */
  shows(load: BoardLoad): boolean {
    return this.current?.load === load;
  }

  /** A reload failed as a whole: the previous load stays, with the reason shown. */
  failed(message: string): void {
    this.version++;
    this.reloadError = message;
    if (this.current) this.current.summary = undefined;
  }

  private async now(): Promise<Current> {
    await this.first.promise;
    return this.current!;
  }

  /** The list, the problems and the client choices, as JSON text (built once per load). */
  async summary(): Promise<string> {
    const current = await this.now();
    if (current.summary === undefined) {
      const { result, findings } = current.load;
      // Mapped once per read of the workspace: an audit arriving rebuilds the summary, not this.
      current.evals ??= current.load.evals ? evalsView(result, current.load.evals) : NO_EVALS;
      const summary: BoardSummary = {
        version: this.version,
        skills: skillRows(result, current.records, findings.audits),
        problems: problemGroups(findings.problems, result.display, ownsFile(result)),
        clients: [...CLIENT_CHOICES],
        layers: result.config.layers
          .map((l) => ({ name: l.name, priority: l.priority, owned: ownedLayer(l) }))
          .sort((a, b) => b.priority - a.priority),
        ...(this.reloadError !== undefined && { reloadError: this.reloadError }),
        governance: governanceView(result),
        evals: current.evals,
      };
      current.summary = JSON.stringify(summary);
    }
    return current.summary;
  }

  /** Ids ranked as `find_skills` ranks them (every match, not a page). */
  async search(query: string): Promise<string[]> {
    const { load } = await this.now();
    const registry = load.result.registry;
    const { hits } = searchSkills(searchIndexOf(registry), { query, limit: registry.served().length });
    return hits.map((h) => h.candidate.skill.id);
  }

  async skill(id: string): Promise<SkillPage | undefined> {
    const current = await this.now();
    return skillPage(current.load, current.records, id);
  }

  /** What `prompts/get` or `tools/call` answers for these arguments, failures with the server's own messages. */
  async render(id: string, args: unknown): Promise<RenderAnswer | undefined> {
    const { load } = await this.now();
    const registry = load.result.registry;
    const skill = registry.get(id)?.skill;
    if (!skill) return undefined;
    const values = isPlainObject(args) ? args : {};
    const result = skill.type === "tool" ? await invokeTool(registry, id, values) : invokePrompt(registry, id, values);
    return result.ok ? { ok: true, text: result.text } : { ok: false, problems: [...result.error.problems] };
  }

  async client(key: string): Promise<ClientView | undefined> {
    const client = clientByKey(key);
    if (!client) return undefined;
    const { load } = await this.now();
    return clientView(this.source, load.result.registry, client, this.live);
  }

  /**
   * What the client is sent to learn the catalog, in tokens (loads the tokenizer on the first
   * ask), with the load's competing skills, or "computing" while they are worked out.
   */
  async cost(key: string): Promise<CostView | undefined> {
    const client = clientByKey(key);
    if (!client) return undefined;
    const current = await this.now();
    let cost = current.costs.get(key);
    if (cost === undefined) {
      const { costView } = await import("./insights.ts");
      cost = costView(this.source, current.load.result.registry, client.name);
      current.costs.set(key, cost);
    }
    return { ...cost, competing: current.competing ?? { state: "computing" } };
  }

  /** The served skills unused lately, from the usage store (read now: other processes write it). */
  async usage(): Promise<UsageOverview> {
    const { load } = await this.now();
    const { usageOverview } = await import("./insights.ts");
    return usageOverview(load.result.config.usage, load.result.registry);
  }

  /** `from`: where the page's first day starts (its local midnight), so each bar is one of the viewer's days. */
  async skillUsage(id: string, from?: number): Promise<SkillUsageView | undefined> {
    const { load } = await this.now();
    if (!load.result.registry.get(id)) return undefined;
    const { skillUsage } = await import("./insights.ts");
    return skillUsage(load.result.config.usage, id, Date.now(), from);
  }

  /** "Add to my IDE" for one client: the install command and the entry install writes. */
  async ideSetup(key: string): Promise<IdeSetup | undefined> {
    const { ideSetup } = await import("./ide-setup.ts");
    return ideSetup(key, this.project);
  }
}

/** By file, then line and column: validate's order. */
function byPlace(a: Diagnostic, b: Diagnostic): number {
  const fa = a.file ?? "";
  const fb = b.file ?? "";
  if (fa !== fb) return fa < fb ? -1 : 1;
  return (a.position?.line ?? 0) - (b.position?.line ?? 0) || (a.position?.column ?? 0) - (b.position?.column ?? 0);
}

/** `extra` merged into `problems` (already in validate's order), each where validate lists it. */
function mergeByPlace(problems: readonly Diagnostic[], extra: readonly Diagnostic[]): Diagnostic[] {
  const sorted = [...extra].sort(byPlace);
  const out: Diagnostic[] = [];
  let k = 0;
  for (const d of problems) {
    while (k < sorted.length && byPlace(sorted[k]!, d) < 0) out.push(sorted[k++]!);
    out.push(d);
  }
  while (k < sorted.length) out.push(sorted[k++]!);
  return out;
}
