/**
 * The usage report, computed by the database: a few GROUP BY queries over the window (by skill,
 * outcome, client and project; distinct callers; uses per bucket of time), the same SQL for
 * SQLite and PostgreSQL, so a store of millions of rows answers with one row per group and no row
 * is ever loaded into memory. Whole days are read from the daily roll-ups (usage-schema.ts), the
 * parts of a day at the window's ends from the rows: months of history cost thousands of rows. A refused call (its arguments refused before it ran) is not a use:
 * it is counted apart.
 */
import { CALLERS_TABLE, DAILY_TABLE, DAY_MS, USES_TABLE } from "./usage-schema.ts";

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
  /**
   * Count each bucket from the rows themselves, not from the daily roll-ups: for buckets that are
   * not UTC days (a viewer's local days), where a roll-up's day would put a use at 23:39 UTC in
   * the wrong one. Read with `skill` set (the index on skill and time keeps it one skill's rows).
   */
  exactBuckets?: boolean;
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

/** The filters other than time, as clauses with `?` parameters (the roll-ups keep '' for "none"). */
function filters(query: UsageQuery): { clauses: string[]; params: string[] } {
  const clauses: string[] = [];
  const params: string[] = [];
  for (const key of ["skill", "project", "client"] as const) {
    const value = query[key];
    if (value === undefined) continue;
    clauses.push(`${key} = ?`);
    params.push(value);
  }
  return { clauses, params };
}

/**
 * The window as the queries read it: the whole days inside it from the daily roll-ups, and the
 * parts of a day at each end (at most a day each) from the rows themselves, so every count is
 * exact however the window falls. `days` is undefined when no whole day fits.
 */
function split(since: number, until: number): { days?: [number, number]; edges: [number, number][] } {
  const first = Math.ceil(since / DAY_MS);
  const last = Math.floor((until + 1) / DAY_MS) - 1;
  if (first > last) return { edges: [[since, until]] };
  const edges: [number, number][] = [];
  if (since < first * DAY_MS) edges.push([since, first * DAY_MS - 1]);
  if ((last + 1) * DAY_MS <= until) edges.push([(last + 1) * DAY_MS, until]);
  return { days: [first, last], edges };
}

/** The report's queries: groups, callers, and (with more than one bucket) uses per bucket; each list's rows add up. */
export function reportQueries(
  query: UsageQuery,
  until: number,
): { groups: ReportQuery[]; callers: ReportQuery; buckets: ReportQuery[] } {
  const since = Math.floor(query.since);
  const { days, edges } = split(since, Math.floor(until));
  const f = filters(query);
  const and = (clauses: string[]) => clauses.map((c) => ` AND ${c}`).join("");
  const edgeClause = edges.map(() => "(at >= ? AND at <= ?)").join(" OR ");
  const edgeParams = edges.flat();
  const raw = (extra: string[] = []) =>
    edges.length === 0
      ? undefined
      : { sql: `(${edgeClause})${and([...f.clauses, ...extra])}`, params: [...edgeParams, ...f.params] };
  const daily = (extra: string[] = []) =>
    days && { sql: `day >= ? AND day <= ?${and([...f.clauses, ...extra])}`, params: [...days, ...f.params] };

  const groups: ReportQuery[] = [];
  const d = daily();
  if (d)
    groups.push({
      sql: `SELECT skill, outcome, NULLIF(client, '') AS client, NULLIF(project, '') AS project, CAST(SUM(n) AS INTEGER) AS n, CAST(MAX(last) AS DOUBLE PRECISION) AS last FROM ${DAILY_TABLE} WHERE ${d.sql} GROUP BY 1, 2, 3, 4`,
      params: d.params,
    });
  const r = raw();
  if (r)
    groups.push({
      sql: `SELECT skill, outcome, client, project, CAST(COUNT(*) AS INTEGER) AS n, CAST(MAX(at) AS DOUBLE PRECISION) AS last FROM ${USES_TABLE} WHERE ${r.sql} GROUP BY 1, 2, 3, 4`,
      params: r.params,
    });

  // Distinct callers over both sources at once: a caller seen in the roll-up and an edge counts once.
  const parts: string[] = [];
  let callerParams: (string | number)[] = [];
  const dc = daily();
  if (dc) {
    parts.push(`SELECT skill, caller FROM ${CALLERS_TABLE} WHERE ${dc.sql}`);
    callerParams = [...callerParams, ...dc.params];
  }
  const rc = raw(["caller IS NOT NULL", "outcome <> 'refused'"]);
  if (rc) {
    parts.push(`SELECT skill, caller FROM ${USES_TABLE} WHERE ${rc.sql}`);
    callerParams = [...callerParams, ...rc.params];
  }
  const callers = {
    sql: `SELECT skill, CAST(COUNT(DISTINCT caller) AS INTEGER) AS n FROM (${parts.join(" UNION ALL ")}) AS c GROUP BY skill`,
    params: callerParams,
  };

  const count = Math.max(1, query.buckets ?? 1);
  const buckets: ReportQuery[] = [];
  if (count > 1) {
    const width = Math.max(1, Math.ceil((until - since) / count));
    const db = query.exactBuckets ? undefined : daily(["outcome <> 'refused'"]);
    // A whole day falls in the bucket of its middle: the sparkline may move part of a day by one
    // column where buckets do not start at midnight; the counts above stay exact.
    if (db)
      buckets.push({
        sql: `SELECT skill, CAST((day * ${DAY_MS} + ${DAY_MS / 2} - ?) / ? AS INTEGER) AS b, CAST(SUM(n) AS INTEGER) AS n FROM ${DAILY_TABLE} WHERE ${db.sql} GROUP BY 1, 2`,
        params: [since, width, ...db.params],
      });
    const rb = query.exactBuckets
      ? {
          sql: `at >= ? AND at <= ?${and([...f.clauses, "outcome <> 'refused'"])}`,
          params: [since, until, ...f.params],
        }
      : raw(["outcome <> 'refused'"]);
    if (rb)
      buckets.push({
        sql: `SELECT skill, CAST((at - ?) / ? AS INTEGER) AS b, CAST(COUNT(*) AS INTEGER) AS n FROM ${USES_TABLE} WHERE ${rb.sql} GROUP BY 1, 2`,
        params: [since, width, ...rb.params],
      });
  }
  return { groups, callers, buckets };
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
