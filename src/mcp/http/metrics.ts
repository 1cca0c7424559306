/** `/metrics` in Prometheus' format: the client library loaded lazily, labels bounded, a removed skill's series dropped. */
import type * as Prom from "prom-client";
import { perSnapshot } from "../../registry/per-snapshot.ts";
import type { Registry } from "../../registry/registry.ts";
import { type SkillKind, skillKind } from "../../skill/skill.ts";
import type { OnSkillUse, SkillUseVia } from "../feature.ts";
import type { RegistrySource } from "../registry-source.ts";
import { type BearerTokens, loadMetricsToken } from "./bearer-tokens.ts";

export const METRICS_PATH = "/metrics";

/** A reload's outcome as `skill_central_reloads_total` counts it (the first load is not a reload). */
export type ReloadOutcome = "ok" | "failed";

/**
 * The JSON-RPC methods the server knows, each its own `method` label; any other method is
 * `other`, and a request that carries none (a GET stream, a DELETE, a refusal before the body
 * was read, a client's response) is `none`. A client cannot grow the label set.
 */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "notifications/initialized",
  "notifications/cancelled",
  "ping",
  "server/discover",
  "subscriptions/listen",
  "prompts/list",
  "prompts/get",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/directory/read",
  "skills/list",
  "skills/get",
  "completion/complete",
]);

export function methodLabel(rpc: string | undefined): string {
  if (rpc === undefined) return "none";
  return KNOWN_METHODS.has(rpc) ? rpc : "other";
}

/** The `via` label of a use metrics count (answered uses only): `run_skill_tool` counts as `tools/call`. */
type MetricVia = "prompts/get" | "tools/call" | "load_skill" | "skills/get";
const VIAS: readonly MetricVia[] = ["prompts/get", "tools/call", "load_skill", "skills/get"];
const METRIC_VIA: Partial<Record<SkillUseVia, MetricVia>> = {
  "prompts/get": "prompts/get",
  "tools/call": "tools/call",
  run_skill_tool: "tools/call",
  load_skill: "load_skill",
  "skills/get": "skills/get",
};

/** Served skills by kind: an Agent Skills folder is `folder`, a YAML skill its type. Counted once per snapshot. */
const skillsByKind = perSnapshot((registry: Registry): Record<SkillKind, number> => {
  const counts = { prompt: 0, tool: 0, folder: 0 };
  for (const { skill } of registry.served()) counts[skillKind(skill)]++;
  return counts;
});

/** Seconds; most answers take a millisecond or two, a first load can hold a request for a second. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface MetricsOptions {
  /** The file holding the token `/metrics` takes. */
  tokenFile: string;
  source: RegistrySource;
  /** 2025-11-25 sessions open now (0 when stateless). */
  openSessions: () => number;
  /** Uses the usage history dropped so far (its buffer full while the store was down). */
  usageDropped?: () => number;
  warn: (message: string) => void;
}

const unauthorized = () =>
  new Response("Unauthorized: /metrics takes the metrics token (Authorization: Bearer <token>)\n", {
    status: 401,
    headers: {
      "WWW-Authenticate": 'Bearer realm="skill-central-metrics"',
      "Content-Type": "text/plain; charset=utf-8",
    },
  });

/**
 * Usage metrics in Prometheus text format, from `prom-client` (loaded here, only when metrics are
 * configured: plain start-up does not pay for it). Each server has its own registry, so servers
 * in one process do not share counts. Series and labels: docs/metrics.md.
 */
export class HttpMetrics {
  private readonly registry: Prom.Registry;
  private readonly requests: Prom.Counter<"method" | "status">;
  private readonly duration: Prom.Histogram<"method">;
  private readonly reloads: Prom.Counter<"result">;
  private readonly uses: Prom.Counter<"skill" | "via">;
  /** Ids with a `skill_central_skill_uses_total` series, to drop the ones a reload removed. */
  private readonly counted = new Set<string>();
  private readonly stopWatching: () => void;

  private constructor(
    private readonly token: BearerTokens,
    options: MetricsOptions,
  ) {
    const prom = require("prom-client") as typeof Prom;
    this.registry = new prom.Registry();
    const registers = [this.registry];
    prom.collectDefaultMetrics({ register: this.registry });
    this.requests = new prom.Counter({
      name: "skill_central_requests_total",
      help: "Requests to /mcp, by JSON-RPC method and HTTP status",
      labelNames: ["method", "status"],
      registers,
    });
    this.duration = new prom.Histogram({
      name: "skill_central_request_duration_seconds",
      help: "Time to answer a request to /mcp (to its response headers, for a stream), by JSON-RPC method",
      labelNames: ["method"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.reloads = new prom.Counter({
      name: "skill_central_reloads_total",
      help: "Reloads of the skills after a change, by result",
      labelNames: ["result"],
      registers,
    });
    this.uses = new prom.Counter({
      name: "skill_central_skill_uses_total",
      help: "Skills served, by skill id and the request that served it",
      labelNames: ["skill", "via"],
      registers,
    });
    const { openSessions, source } = options;
    new prom.Gauge({
      name: "skill_central_sessions_open",
      help: "2025-11-25 sessions open",
      registers,
      collect() {
        this.set(openSessions());
      },
    });
    new prom.Gauge({
      name: "skill_central_skills",
      help: "Skills served, by kind (prompt, tool, folder: an Agent Skills folder)",
      labelNames: ["kind"],
      registers,
      collect() {
        const registry = source.loaded();
        if (registry === undefined) return;
        for (const [kind, count] of Object.entries(skillsByKind(registry))) this.set({ kind }, count);
      },
    });
    const { usageDropped } = options;
    let droppedSeen = 0;
    new prom.Counter({
      name: "skill_central_usage_dropped_total",
      help: "Uses not recorded: the usage store was down or locked past the buffer's bound",
      registers,
      collect() {
        const dropped = usageDropped?.() ?? 0;
        if (dropped > droppedSeen) this.inc(dropped - droppedSeen);
        droppedSeen = Math.max(droppedSeen, dropped);
      },
    });
    // Both results exist from the start, so a dashboard's rate() sees the first failure.
    for (const result of ["ok", "failed"] as const) this.reloads.inc({ result }, 0);
    this.stopWatching = source.onSwap((next) => this.forgetRemoved(next));
  }

  /** Reads the token file (throws `TokenConfigError` when it cannot be used) and sets up the metrics. */
  static open(options: MetricsOptions): HttpMetrics {
    return new HttpMetrics(loadMetricsToken(options.tokenFile, options.warn), options);
  }

  /** One request to /mcp answered. */
  requested(rpc: string | undefined, status: number, seconds: number): void {
    const method = methodLabel(rpc);
    this.requests.inc({ method, status: String(status) });
    this.duration.observe({ method }, seconds);
  }

  /** The features' `onUse` hook. */
  readonly used: OnSkillUse = ({ skill, via, outcome }) => {
    const label = METRIC_VIA[via];
    if (outcome !== "ok" || label === undefined) return;
    this.uses.inc({ skill, via: label });
    this.counted.add(skill);
  };

  reloaded(outcome: ReloadOutcome): void {
    this.reloads.inc({ result: outcome });
  }

  /**
   * A skill a reload removed keeps no series: the label set stays bounded by the skills that
   * exist, however many come and go. (Should it come back, its count restarts, which `rate()`
   * reads as a counter reset.)
   */
  private forgetRemoved(next: Registry): void {
    for (const skill of this.counted) {
      if (next.get(skill) !== undefined) continue;
      for (const via of VIAS) this.uses.remove({ skill, via });
      this.counted.delete(skill);
    }
  }

  /** `GET /metrics`: the exposition, for the metrics token only (no MCP token is accepted). */
  async answer(request: Request): Promise<Response> {
    if (!this.token.check(request.headers.get("authorization")).ok) return unauthorized();
    if (request.method !== "GET")
      return new Response("Method Not Allowed: GET /metrics\n", { status: 405, headers: { Allow: "GET" } });
    return new Response(await this.registry.metrics(), {
      headers: { "Content-Type": this.registry.contentType, "Cache-Control": "no-store" },
    });
  }

  close(): void {
    this.stopWatching();
    this.registry.clear();
  }
}
