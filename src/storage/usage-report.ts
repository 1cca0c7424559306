/**
 * The usage report, computed by the database: a few GROUP BY queries over the window (by skill,
 * outcome, client and project; distinct callers; uses per bucket of time), the same SQL for
 * SQLite and PostgreSQL, so a store of millions of rows answers with one row per group and no row
 * is ever loaded into memory. A refused call (its arguments refused before it ran) is not a use:
 * it is counted apart.
 */
import { USES_TABLE } from "./usage-schema.ts";

/** How a use ended: answered, failed, the person declined the form that asked for its arguments, or refused before it ran. */
export type UseOutcome = "ok" | "error" | "declined" | "refused";

/** What a row recorded before projects were recorded shows as its project. */
export const NO_PROJECT = "(before projects)";

export interface UsageQuery {
  /** Milliseconds since the epoch: uses at or after it. */
  since: number;
  /** Up to this time (defaults to now). */
  until?: number;
  skill?: string;
  /** Only this project's identity (project-identity.ts). */
  project?: string;
  /** Only this client's name. */
  client?: string;
  /** How many buckets the window is cut into (1: no sparkline query). */
  buckets?: number;
}

/** Per skill: its uses in a window. */
export interface SkillUsage {
  skill: string;
  /** Uses: every outcome but `refused`. */
  uses: number;
  /** Calls refused before they ran: not uses. */
  refused: number;
  /** Milliseconds since the epoch of the last use (or refusal, when it has no use). */
  lastUsed: number;
  /** Uses by the client's name ("unknown" when it gave none). */
  clients: Record<string, number>;
  /** Distinct callers (token labels, OAuth names) among the uses; stdio has none. */
  callers: number;
  /** Calls by outcome, refusals included. */
  outcomes: Partial<Record<UseOutcome, number>>;
  /** Uses by project identity (NO_PROJECT for rows from before projects were recorded). */
  projects: Record<string, number>;
  /** Uses per bucket of the window, oldest first (for a sparkline). */
  buckets: number[];
}

export interface ReportQuery {
  sql: string;
  params: (string | number)[];
}

/** The filters, as a WHERE clause with `?` parameters. */
function where(query: UsageQuery, until: number, extra = ""): ReportQuery {
  const clauses = ["at >= ?", "at <= ?"];
  const params: (string | number)[] = [Math.floor(query.since), Math.floor(until)];
  for (const key of ["skill", "project", "client"] as const) {
    const value = query[key];
    if (value === undefined) continue;
    clauses.push(`${key} = ?`);
    params.push(value);
  }
  if (extra !== "") clauses.push(extra);
  return { sql: clauses.join(" AND "), params };
}

/** The report's queries: groups, callers, and (with more than one bucket) uses per bucket. */
export function reportQueries(
  query: UsageQuery,
  until: number,
): { groups: ReportQuery; callers: ReportQuery; buckets?: ReportQuery } {
  const all = where(query, until);
  const uses = where(query, until, "outcome <> 'refused'");
  const groups = {
    sql: `SELECT skill, outcome, client, project, CAST(COUNT(*) AS INTEGER) AS n, CAST(MAX(at) AS DOUBLE PRECISION) AS last FROM ${USES_TABLE} WHERE ${all.sql} GROUP BY skill, outcome, client, project`,
    params: all.params,
  };
  const callers = {
    sql: `SELECT skill, CAST(COUNT(DISTINCT caller) AS INTEGER) AS n FROM ${USES_TABLE} WHERE ${uses.sql} GROUP BY skill`,
    params: uses.params,
  };
  const count = Math.max(1, query.buckets ?? 1);
  if (count === 1) return { groups, callers };
  const width = Math.max(1, Math.ceil((until - query.since) / count));
  return {
    groups,
    callers,
    buckets: {
      sql: `SELECT skill, CAST((at - ?) / ? AS INTEGER) AS b, CAST(COUNT(*) AS INTEGER) AS n FROM ${USES_TABLE} WHERE ${uses.sql} GROUP BY 1, 2`,
      params: [Math.floor(query.since), width, ...uses.params],
    },
  };
}

export interface GroupRow {
  skill: string;
  outcome: string;
  client: string | null;
  project: string | null;
  n: number;
  last: number;
}

/** The queries' rows as one entry per skill, most used first. */
export function summarise(
  groups: readonly GroupRow[],
  callers: readonly { skill: string; n: number }[],
  buckets: readonly { skill: string; b: number; n: number }[],
  bucketCount: number,
): SkillUsage[] {
  const bySkill = new Map<string, SkillUsage>();
  const entry = (skill: string) => {
    let usage = bySkill.get(skill);
    if (usage === undefined) {
      usage = {
        skill,
        uses: 0,
        refused: 0,
        lastUsed: 0,
        clients: {},
        callers: 0,
        outcomes: {},
        projects: {},
        buckets: new Array(Math.max(1, bucketCount)).fill(0),
      };
      bySkill.set(skill, usage);
    }
    return usage;
  };
  const lastRefused = new Map<string, number>();
  for (const row of groups) {
    const usage = entry(row.skill);
    const n = Number(row.n);
    const outcome = row.outcome as UseOutcome;
    usage.outcomes[outcome] = (usage.outcomes[outcome] ?? 0) + n;
    if (outcome === "refused") {
      usage.refused += n;
      lastRefused.set(row.skill, Math.max(lastRefused.get(row.skill) ?? 0, Number(row.last)));
      continue;
    }
    usage.uses += n;
    usage.lastUsed = Math.max(usage.lastUsed, Number(row.last));
    const client = row.client ?? "unknown";
    usage.clients[client] = (usage.clients[client] ?? 0) + n;
    const project = row.project ?? NO_PROJECT;
    usage.projects[project] = (usage.projects[project] ?? 0) + n;
  }
  for (const [skill, last] of lastRefused) {
    const usage = entry(skill);
    if (usage.uses === 0) usage.lastUsed = last;
  }
  for (const row of callers) entry(row.skill).callers = Number(row.n);
  if (bucketCount > 1)
    for (const row of buckets) {
      const usage = entry(row.skill);
      const b = Math.min(bucketCount - 1, Math.max(0, Number(row.b)));
      usage.buckets[b] = (usage.buckets[b] ?? 0) + Number(row.n);
    }
  return [...bySkill.values()].sort(
    (a, b) => b.uses - a.uses || b.refused - a.refused || a.skill.localeCompare(b.skill),
  );
}
