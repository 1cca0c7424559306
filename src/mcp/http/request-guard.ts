/** The guard stage: the Origin and Host headers and credentials in query strings checked before anything else, and CORS for trusted origins. */
import { localhostAllowedHostnames, validateHostHeader } from "@modelcontextprotocol/server";
import { quoted } from "../../errors.ts";
import type { BearerTokens } from "./bearer-tokens.ts";
import { errorResponse } from "./responses.ts";

export interface GuardOptions {
  /** The server listens on a loopback address only. */
  loopback: boolean;
  /** Extra host names the Host header may carry (`--allow-host`). */
  allowedHosts: readonly string[];
  /** Extra browser origins that may call the server (`--allow-origin`, e.g. `https://app.example.com`). */
  allowedOrigins: readonly string[];
  tokens: BearerTokens | undefined;
}

/** Query parameters that carry credentials by convention; all are refused. */
const CREDENTIAL_PARAMS = new Set([
  "access_token",
  "token",
  "bearer",
  "api_key",
  "apikey",
  "key",
  "auth",
  "authorization",
  "password",
  "secret",
]);

/** Headers a browser client may send, and the ones it may read, in cross-origin requests. */
const CORS_REQUEST_HEADERS =
  "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID";
const CORS_EXPOSED_HEADERS = "Mcp-Session-Id, WWW-Authenticate";

/**
 * The origin an `--allow-origin` value names, as browsers write it (`https://app.example.com`,
 * lower-case host, no default port: `:443` for https and `:80` for http are dropped), or
 * undefined when it is not an http(s) origin (a path, a query, credentials, another scheme).
 */
export function parseAllowedOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (
    url.username !== "" ||
    url.password !== "" ||
    url.pathname !== "/" ||
    url.search !== "" ||
    url.hash !== "" ||
    /[?#]/.test(text)
  )
    return undefined;
  return url.origin;
}

type OriginVerdict = { ok: true } | { ok: false; message: string };

/** The guard stage's verdict: undefined lets the request through, a response refuses it. */
export type Refusal = Response | undefined;

/**
 * The first stage of every request to /mcp: no credentials in the URL, a Host this server
 * answers to and an Origin it trusts (DNS rebinding: a page on another site whose name resolves
 * to 127.0.0.1 must not reach a local server). The bearer token is the next stage (auth.ts).
 */
export class RequestGuard {
  private readonly hosts: readonly string[] | undefined;
  private readonly origins: ReadonlySet<string>;

  constructor(private readonly options: GuardOptions) {
    const named = options.allowedHosts.map((h) => h.toLowerCase());
    // On a non-loopback address the Host is the deployment's own name, which we cannot know
    // unless told (--allow-host); tokens are required there, so the token is the gate.
    this.hosts = options.loopback || named.length > 0 ? [...localhostAllowedHostnames(), ...named] : undefined;
    this.origins = new Set(options.allowedOrigins.map((o) => parseAllowedOrigin(o) ?? o));
  }

  /** An Origin that may call cross-origin (it gets CORS headers), or undefined. */
  trustedOrigin(request: Request): string | undefined {
    const origin = request.headers.get("origin");
    return origin !== null && origin !== "" && this.checkOrigin(origin).ok ? origin : undefined;
  }

  corsHeaders(request: Request): Record<string, string> {
    const origin = this.trustedOrigin(request);
    if (origin === undefined) return {};
    return {
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Expose-Headers": CORS_EXPOSED_HEADERS,
      Vary: "Origin",
    };
  }

  /** The answer to a CORS preflight (OPTIONS) from a trusted origin. */
  preflight(request: Request): Response {
    const cors = this.corsHeaders(request);
    if (!("Access-Control-Allow-Origin" in cors))
      return errorResponse(403, -32000, "Forbidden: this origin may not call the server");
    return new Response(null, {
      status: 204,
      headers: {
        ...cors,
        "Access-Control-Allow-Methods": "GET, POST, DELETE",
        "Access-Control-Allow-Headers": CORS_REQUEST_HEADERS,
        "Access-Control-Max-Age": "600",
      },
    });
  }

  admit(request: Request, url: URL): Refusal {
    if (this.credentialsInUrl(url)) {
      return errorResponse(
        400,
        -32000,
        "Credentials in the URL are refused: send the token in an Authorization: Bearer header",
        {
          "WWW-Authenticate": 'Bearer error="invalid_request"',
        },
      );
    }
    if (this.hosts !== undefined) {
      const host = validateHostHeader(request.headers.get("host"), [...this.hosts]);
      if (!host.ok) return errorResponse(403, -32000, `Forbidden: ${quoted(host.message)}`);
    }
    const origin = this.checkOrigin(request.headers.get("origin"));
    if (!origin.ok)
      return errorResponse(403, -32000, `Forbidden: ${quoted(origin.message)} (allow it with --allow-origin)`);
    return undefined;
  }

  /**
   * No Origin (not a browser), a loopback page on any port, or exactly an `--allow-origin`
   * origin: scheme, host and port all compared, default ports normalised by the URL parser.
   */
  private checkOrigin(header: string | null): OriginVerdict {
    if (header === null || header === "") return { ok: true };
    let url: URL;
    try {
      url = new URL(header);
    } catch {
      return { ok: false, message: `Invalid Origin header: ${header}` };
    }
    const web = url.protocol === "http:" || url.protocol === "https:";
    if (web && localhostAllowedHostnames().includes(url.hostname)) return { ok: true };
    if (web && this.origins.has(url.origin)) return { ok: true };
    return { ok: false, message: `Invalid Origin: ${web ? url.origin : header}` };
  }

  private credentialsInUrl(url: URL): boolean {
    for (const [name, value] of url.searchParams) {
      if (CREDENTIAL_PARAMS.has(name.toLowerCase())) return true;
      if (this.options.tokens?.matches(value)) return true;
    }
    return false;
  }
}
