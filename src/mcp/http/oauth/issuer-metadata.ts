/**
 * The authorization server's metadata (RFC 8414, or OpenID discovery), fetched once and kept. A
 * failed fetch is retried, at most every `RETRY_MS`, by the next request that needs it; until then
 * requests get 503 (their tokens may well be good: a 401 would send clients into a new sign-in).
 */

export interface IssuerMetadata {
  issuer: string;
  jwksUri?: string;
}

/** How long a failed discovery stands before a request may try again. */
export const RETRY_MS = 5_000;
const FETCH_TIMEOUT_MS = 5_000;

/**
 * Where the metadata may be, in the order the MCP authorization spec gives (the same order as the
 * SDK client's `buildDiscoveryUrls`; that client's discovery is not used here because it demands
 * the fields a client's sign-in needs, such as `token_endpoint`, where a resource server needs only
 * `issuer` and `jwks_uri`, and it would load the client into the server): RFC 8414 with the
 * issuer's path inserted after `/.well-known/oauth-authorization-server`, then OpenID with the
 * path inserted, then OpenID with `/.well-known/openid-configuration` appended to the issuer.
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  const at = (suffix: string) => `${url.origin}${suffix}`;
  if (path === "") return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")];
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/** Why discovery failed, for the operator's log (no token is involved in discovery). */
export class DiscoveryError extends Error {
  override readonly name = "DiscoveryError";
}

/** The first metadata document that answers and names exactly `issuer` (a mix-up defence: RFC 8414 §3.3). */
export async function discover(issuer: string, fetcher: typeof fetch = fetch): Promise<IssuerMetadata> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let response: Response;
    try {
      response = await fetcher(url, {
        headers: { Accept: "application/json" },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch (error) {
      failures.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (!response.ok) {
      failures.push(`${url}: HTTP ${response.status}`);
      await response.body?.cancel();
      continue;
    }
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      failures.push(`${url}: not a JSON object`);
      continue;
    }
    if (body.issuer !== issuer)
      throw new DiscoveryError(
        `${url} names the issuer ${JSON.stringify(body.issuer)}, not ${JSON.stringify(issuer)} (http.oauth.issuer must be exactly the provider's issuer)`,
      );
    const jwksUri = typeof body.jwks_uri === "string" ? body.jwks_uri : undefined;
    return { issuer, ...(jwksUri !== undefined && { jwksUri }) };
  }
  throw new DiscoveryError(`no authorization server metadata for ${issuer} (${failures.join("; ")})`);
}

/** The metadata, discovered on first use and kept; failures are retried after `RETRY_MS`. */
export class IssuerDiscovery {
  private found: IssuerMetadata | undefined;
  private pending: Promise<IssuerMetadata | undefined> | undefined;
  private failedAt = -Infinity;

  constructor(
    private readonly issuer: string,
    private readonly warn: (line: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The metadata, or undefined while it cannot be had (the request gets 503). */
  async get(): Promise<IssuerMetadata | undefined> {
    if (this.found !== undefined) return this.found;
    if (this.pending !== undefined) return this.pending;
    if (this.now() - this.failedAt < RETRY_MS) return undefined;
    this.pending = discover(this.issuer)
      .then((metadata) => (this.found = metadata))
      .catch((error: unknown) => {
        this.failedAt = this.now();
        this.warn(
          `oauth: ${error instanceof Error ? error.message : String(error)}; retrying on a request after ${RETRY_MS / 1000} s`,
        );
        return undefined;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }
}
