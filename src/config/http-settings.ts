/**
 * The `http:` key of a config file: what `mcp --http` needs beyond its flags (docs/sign-in.md).
 * Read with the rest of the file (so `validate` and the server's start-up report its warnings
 * with positions), and once more when the HTTP server starts, which refuses to start on a value
 * it cannot use: a sign-in setting silently ignored would leave the server open or locked.
 */
import type { SourcePosition } from "../diagnostics.ts";
import { closest } from "../suggest.ts";
import { ENV_NAME_PATTERN } from "./config-names.ts";
import type { ConfigPath, ConfigProblem, ReportProblem } from "./config-problem.ts";
import { secureUrlProblem } from "./config-url.ts";

/** RFC 7662 introspection of opaque access tokens, as the resource server's own client. */
export interface IntrospectionSettings {
  url: string;
  clientId: string;
  /** The environment variable holding the client secret (never the secret itself, never in a file). */
  clientSecretEnv: string;
}

export interface OAuthSettings {
  /** The authorization server's issuer, exactly as its tokens' `iss` says it. */
  issuer: string;
  /** What `aud` must contain; absent: the public URL. */
  audience?: string;
  /** Scopes every token must carry; empty: none. */
  scopes: readonly string[];
  /** The claim the access log names the caller by (default `sub`). */
  callerClaim: string;
  introspection?: IntrospectionSettings;
}

export interface MetricsSettings {
  /** Absolute: resolved against the config file's folder. */
  tokenFile?: string;
}

/** The `http:` settings in effect: the project's config over the user's, key by key (publicUrl, oauth, metrics). */
export interface HttpSettings {
  /** The canonical URL clients use, e.g. https://skills.example.com/mcp. */
  publicUrl?: string;
  oauth?: OAuthSettings;
  metrics?: MetricsSettings;
}

/** One key as a file declared it: a usable value, or why not (`file:line:col: message`). */
export type Declared<T> = { ok: true; value: T } | { ok: false; problem: string };

/** What one file's `http:` says; a key it does not have is absent. */
export interface DeclaredHttpSettings {
  publicUrl?: Declared<string>;
  oauth?: Declared<OAuthSettings>;
  metrics?: Declared<MetricsSettings>;
}

export const HTTP_KEYS = ["publicUrl", "oauth", "metrics"] as const;
const OAUTH_KEYS = ["issuer", "audience", "scopes", "callerClaim", "introspection"];
const INTROSPECTION_KEYS = ["url", "clientId", "clientSecretEnv"];
const METRICS_KEYS = ["tokenFile"];
const CLAIM_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export interface HttpReadContext {
  file: string;
  /** A path as written, made absolute against the config file's folder (`~` expanded). */
  resolvePath: (path: string) => string;
  /** Where a key is in the file (`["http", "oauth", "issuer"]`), computed only for a message. */
  locate: (path: ConfigPath) => SourcePosition | undefined;
  /** Every problem, paths from the top of the file (`["http", "oauth", "issuer"]`). */
  report: ReportProblem;
}

/** A value that makes its key unusable: the key's reader stops at the first. */
interface Unusable {
  unusable: ConfigProblem;
}

function unusable(message: string, path: ConfigPath, hint?: string): Unusable {
  return { unusable: { message, path, ...(hint !== undefined && { hint }) } };
}

function isUnusable(value: unknown): value is Unusable {
  return typeof value === "object" && value !== null && "unusable" in value;
}

/** The `http:` value of one config file, checked; every problem is also a positioned warning. */
export function readHttpSettings(value: unknown, ctx: HttpReadContext): DeclaredHttpSettings {
  const settings: DeclaredHttpSettings = {};
  if (!isMapping(value)) {
    ctx.report({ message: `"http" must be a mapping with keys like publicUrl, oauth; ignored`, path: ["http"] });
    return settings;
  }
  warnUnknown(value, HTTP_KEYS, ["http"], ctx);
  const read = <T>(key: (typeof HTTP_KEYS)[number], reader: () => T | Unusable): Declared<T> | undefined => {
    if (!(key in value)) return undefined;
    const read = reader();
    if (!isUnusable(read)) return { ok: true, value: read };
    const problem = read.unusable;
    ctx.report(problem);
    const at = ctx.locate(problem.path);
    return { ok: false, problem: `${ctx.file}${at ? `:${at.line}:${at.column}` : ""}: ${problem.message}` };
  };
  const publicUrl = read("publicUrl", () => readPublicUrl(value.publicUrl));
  const oauth = read("oauth", () => readOAuth(value.oauth, ctx));
  const metrics = read("metrics", () => readMetrics(value.metrics, ctx));
  if (publicUrl) settings.publicUrl = publicUrl;
  if (oauth) settings.oauth = oauth;
  if (metrics) settings.metrics = metrics;
  return settings;
}

/** `--public-url` and `http.publicUrl`: the canonical URL of the MCP endpoint, or why not. */
export function publicUrlProblem(text: string): string | undefined {
  const problem = secureUrlProblem(text, "the public URL");
  if (problem !== undefined) return problem;
  if (new URL(text).search !== "") return "the public URL must not have a query string";
  return undefined;
}

function readPublicUrl(value: unknown): string | Unusable {
  const path = ["http", "publicUrl"];
  if (typeof value !== "string" || value.trim() === "")
    return unusable(
      `"http.publicUrl" must be a URL (a string)`,
      path,
      "e.g. publicUrl: https://skills.example.com/mcp",
    );
  const problem = publicUrlProblem(value.trim());
  if (problem !== undefined) return unusable(`"http.publicUrl": ${problem}`, path);
  return value.trim();
}

function readOAuth(value: unknown, ctx: HttpReadContext): OAuthSettings | Unusable {
  const at = ["http", "oauth"];
  if (!isMapping(value))
    return unusable(`"http.oauth" must be a mapping with at least "issuer"`, at, "see docs/sign-in.md");
  warnUnknown(value, OAUTH_KEYS, at, ctx);
  const issuer = requiredUrl(value.issuer, [...at, "issuer"], "http.oauth.issuer");
  if (isUnusable(issuer)) return issuer;
  const scopes = readScopes(value.scopes);
  if (isUnusable(scopes)) return scopes;
  const oauth: OAuthSettings = { issuer, scopes, callerClaim: "sub" };
  if (value.audience !== undefined) {
    if (typeof value.audience !== "string" || value.audience.trim() === "")
      return unusable(`"http.oauth.audience" must be a string`, [...at, "audience"], "e.g. api://skills");
    oauth.audience = value.audience.trim();
  }
  if (value.callerClaim !== undefined) {
    if (typeof value.callerClaim !== "string" || !CLAIM_NAME.test(value.callerClaim))
      return unusable(`"http.oauth.callerClaim" must be a claim name`, [...at, "callerClaim"], "e.g. email");
    oauth.callerClaim = value.callerClaim;
  }
  if (value.introspection !== undefined) {
    const introspection = readIntrospection(value.introspection, ctx);
    if (isUnusable(introspection)) return introspection;
    oauth.introspection = introspection;
  }
  return oauth;
}

function readScopes(value: unknown): string[] | Unusable {
  const path = ["http", "oauth", "scopes"];
  if (value === undefined || value === null) return [];
  const list = typeof value === "string" ? value.split(/\s+/).filter((s) => s !== "") : value;
  if (!Array.isArray(list) || list.some((s) => typeof s !== "string" || !SCOPE.test(s)))
    return unusable(`"http.oauth.scopes" must be a list of scope names`, path, "e.g. scopes: [skills:read]");
  return [...new Set(list as string[])];
}

function readIntrospection(value: unknown, ctx: HttpReadContext): IntrospectionSettings | Unusable {
  const at = ["http", "oauth", "introspection"];
  if (!isMapping(value))
    return unusable(
      `"http.oauth.introspection" must be a mapping { url, clientId, clientSecretEnv }`,
      at,
      "see docs/sign-in.md",
    );
  warnUnknown(value, INTROSPECTION_KEYS, at, ctx);
  const url = requiredUrl(value.url, [...at, "url"], "http.oauth.introspection.url");
  if (isUnusable(url)) return url;
  if (typeof value.clientId !== "string" || value.clientId.trim() === "")
    return unusable(`"http.oauth.introspection.clientId" must be a string`, [...at, "clientId"]);
  if (typeof value.clientSecretEnv !== "string" || !ENV_NAME_PATTERN.test(value.clientSecretEnv))
    return unusable(
      `"http.oauth.introspection.clientSecretEnv" must name an environment variable`,
      [...at, "clientSecretEnv"],
      "the secret stays in the environment, e.g. clientSecretEnv: SKILLS_INTROSPECTION_SECRET",
    );
  return { url, clientId: value.clientId.trim(), clientSecretEnv: value.clientSecretEnv };
}

function readMetrics(value: unknown, ctx: HttpReadContext): MetricsSettings | Unusable {
  const at = ["http", "metrics"];
  if (value === null) return {};
  if (!isMapping(value)) return unusable(`"http.metrics" must be a mapping { tokenFile }`, at);
  warnUnknown(value, METRICS_KEYS, at, ctx);
  if (value.tokenFile === undefined) return {};
  if (typeof value.tokenFile !== "string" || value.tokenFile.trim() === "")
    return unusable(`"http.metrics.tokenFile" must be a file path`, [...at, "tokenFile"], "e.g. ./metrics-token");
  return { tokenFile: ctx.resolvePath(value.tokenFile.trim()) };
}

function requiredUrl(value: unknown, path: ConfigPath, name: string): string | Unusable {
  if (typeof value !== "string" || value.trim() === "")
    return unusable(`"${name}" must be a URL (a string)`, path, "e.g. https://login.example.com/realms/eng");
  const problem = secureUrlProblem(value.trim(), `"${name}"`);
  if (problem !== undefined) return unusable(problem, path);
  return value.trim();
}

function warnUnknown(
  value: Record<string, unknown>,
  known: readonly string[],
  at: ConfigPath,
  ctx: HttpReadContext,
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const meant = closest(key, known);
    ctx.report({
      message: `unknown key "${[...at, key].join(".")}" is ignored (known: ${known.join(", ")})`,
      path: [...at, key],
      ...(meant ? { hint: `did you mean "${meant}"?` } : {}),
    });
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The settings in effect: for each of publicUrl, oauth and metrics, the project's declaration if
 * it has one, else the user's (the `oauth` block is taken whole: an issuer from one file and an
 * audience from another would be a token policy nobody wrote). `problems` are the declarations in
 * effect that cannot be used: the HTTP server refuses to start on any.
 */
export function mergeHttpSettings(...files: readonly (DeclaredHttpSettings | undefined)[]): {
  settings: HttpSettings;
  problems: string[];
} {
  const settings: HttpSettings = {};
  const problems: string[] = [];
  for (const key of HTTP_KEYS) {
    const declared = files.reduce<Declared<unknown> | undefined>((found, file) => file?.[key] ?? found, undefined);
    if (declared === undefined) continue;
    if (!declared.ok) problems.push(declared.problem);
    else Object.assign(settings, { [key]: declared.value });
  }
  return { settings, problems };
}
