import type { ReportProblem } from "./config-problem.ts";
import type { VisibleTo } from "./visible-to.ts";

const VISIBLE_TO_KEYS = ["claims", "labels"];
const HINT = "e.g. visibleTo: { claims: { groups: [security, sre] }, labels: [alice] }";

/** A problem with one part of a layer's `visibleTo`, all placed at the `visibleTo` key. */
type VisibleToWarn = (message: string, hint?: string) => void;

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

/** A list of strings (one string counts as a list of one); whatever is not a string is dropped with a warning. */
function stringList(value: unknown, what: string, warn: VisibleToWarn): string[] {
  if (typeof value === "string") return [value];
  if (!Array.isArray(value)) {
    warn(`${what} must be a list of strings, not ${kindOf(value)}; it grants nobody`, HINT);
    return [];
  }
  const strings: string[] = [];
  value.forEach((item, i) => {
    if (typeof item === "string" && item !== "") strings.push(item);
    else
      warn(
        `${what}: entry ${i + 1} (${item === "" ? "empty" : kindOf(item)}) is not a non-empty string; it grants nobody`,
      );
  });
  return strings;
}

function readClaims(value: unknown, where: string, warn: VisibleToWarn): Record<string, readonly string[]> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    warn(`${where}.claims must be a mapping of claim name to values, not ${kindOf(value)}; it grants nobody`, HINT);
    return {};
  }
  const claims: Record<string, readonly string[]> = {};
  for (const [name, values] of Object.entries(value as Record<string, unknown>)) {
    const accepted = stringList(values, `${where}.claims.${name}`, warn);
    if (accepted.length > 0) claims[name] = accepted;
  }
  return claims;
}

/**
 * A layer's `visibleTo`, read strictly. It fails closed: a `visibleTo` that is present always
 * restricts the layer, whatever is wrong with it. Each malformed part is dropped with a warning
 * (dropping a part of an allow-list only narrows it), and one that allows nobody leaves the layer
 * visible to no HTTP caller (stdio, the local user, still sees it), never to everyone. Problems
 * are reported at `["visibleTo"]`, relative to the layer.
 */
export function readVisibleTo(value: unknown, layer: string, report: ReportProblem): VisibleTo {
  const warn: VisibleToWarn = (message, hint) =>
    report({ message, path: ["visibleTo"], ...(hint !== undefined && { hint }) });
  const where = `layer "${layer}": visibleTo`;
  let claims: Record<string, readonly string[]> = {};
  let labels: string[] = [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    warn(`${where} must be a mapping with claims and/or labels, not ${kindOf(value)}`, HINT);
  } else {
    for (const [key, part] of Object.entries(value as Record<string, unknown>)) {
      if (key === "claims") claims = readClaims(part, where, warn);
      else if (key === "labels") labels = stringList(part, `${where}.labels`, warn);
      else warn(`${where}: unknown key "${key}" grants nobody (known: ${VISIBLE_TO_KEYS.join(", ")})`, HINT);
    }
  }
  if (labels.length === 0 && Object.keys(claims).length === 0)
    warn(`${where} allows nobody, so no HTTP caller sees this layer (stdio still does)`, HINT);
  return { claims, labels };
}
