/**
 * A layer that takes its skills from an Agent Skills well-known index (docs/well-known.md):
 *
 *     - { name: vendor, priority: 30, url: https://example.com/.well-known/agent-skills/,
 *         skills: [code-review, pdf], tokenEnv: VENDOR_TOKEN }
 *
 * `url` is the index's folder (or the `index.json` itself, or a versioned `v1.2.0/` snapshot);
 * `skills` takes only those; `tokenEnv` names the environment variable holding a bearer token.
 * The URL is never echoed in a message (it may carry credentials).
 */
import { ENV_NAME_PATTERN, SKILL_NAME_PATTERN } from "./config-names.ts";
import type { ReportProblem } from "./config-problem.ts";
import { parseWebUrl } from "./config-url.ts";

export interface WellKnownSource {
  /** The index's URL as configured, normalised to end in `index.json`. */
  url: string;
  /** Only these skills (absent: every skill the index lists). */
  skills?: readonly string[];
  /** The environment variable holding a bearer token sent with every request. */
  tokenEnv?: string;
  /** The allowed-signers file (absolute) whose keys must have signed `index.json` (docs/provenance.md). */
  signers?: string;
}

/** Keys that only a layer with `url` takes. */
export const WELL_KNOWN_ONLY_KEYS = ["skills", "tokenEnv"] as const;

/** The index's URL for a configured `url`: a folder gets `index.json`. */
function indexUrlOf(parsed: URL): string {
  if (!parsed.pathname.endsWith(".json") && !parsed.pathname.endsWith("/")) parsed.pathname += "/";
  if (parsed.pathname.endsWith("/")) parsed.pathname += "index.json";
  return parsed.href;
}

/** The well-known keys of one layer, or undefined (after a problem reported; paths relative to the layer) when the layer is ignored. */
export function readWellKnownSource(
  layer: Record<string, unknown>,
  name: string,
  report: ReportProblem,
): WellKnownSource | undefined {
  const { url, skills, tokenEnv } = layer;
  const ignored = (message: string, field: string): undefined => void report({ message, path: [field] });
  if (typeof url !== "string" || url.trim() === "")
    return ignored(`layer "${name}": "url" must be a well-known index URL (a string); layer ignored`, "url");
  const parsed = parseWebUrl(url.trim());
  if (parsed === "scheme")
    return ignored(
      `layer "${name}": "url" must be an http:// or https:// URL (other schemes are refused); layer ignored`,
      "url",
    );
  if (parsed === "invalid") return ignored(`layer "${name}": "url" is not a valid URL; layer ignored`, "url");
  const source: WellKnownSource = { url: indexUrlOf(parsed) };
  if (skills !== undefined) {
    if (!Array.isArray(skills) || skills.some((s) => typeof s !== "string" || !SKILL_NAME_PATTERN.test(s)))
      return ignored(
        `layer "${name}": "skills" must be a list of skill names (lowercase, digits, hyphens); layer ignored`,
        "skills",
      );
    source.skills = [...new Set(skills as string[])].sort();
  }
  if (tokenEnv !== undefined) {
    if (typeof tokenEnv !== "string" || !ENV_NAME_PATTERN.test(tokenEnv))
      return ignored(
        `layer "${name}": "tokenEnv" must name an environment variable (letters, digits, _); layer ignored`,
        "tokenEnv",
      );
    source.tokenEnv = tokenEnv;
  }
  return source;
}
