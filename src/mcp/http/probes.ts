/** `/healthz` and `/readyz`: answered outside every cap, with no authentication. */
import type { LiveRegistry } from "../registry-source.ts";

/** The health paths; answered outside every cap, with no authentication. */
export const PROBE_PATHS = ["/healthz", "/readyz"] as const;

/**
 * `/healthz`: the process answers (503 once it is stopping). `/readyz`: it also has skills to
 * serve, with how many (503 while the first load runs, after it failed, or while stopping).
 */
export function probe(path: (typeof PROBE_PATHS)[number], source: LiveRegistry, stopping: boolean): Response {
  if (path === "/healthz")
    return Response.json({ status: stopping ? "stopping" : "ok" }, { status: stopping ? 503 : 200 });
  const readiness = source.readiness();
  if (stopping) return Response.json({ status: "stopping" }, { status: 503 });
  if (readiness.state !== "ready") return Response.json({ status: readiness.state }, { status: 503 });
  return Response.json({
    status: "ready",
    prompts: readiness.registry.ofType("prompt").length,
    tools: readiness.registry.ofType("tool").length,
  });
}
