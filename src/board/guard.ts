/**
 * The board's gate: who may read it (BoardGuard's stages, the token's among them) and the
 * headers every one of its responses carries (SECURITY_HEADERS).
 */
import { RequestGuard } from "../mcp/http/request-guard.ts";
import { BoardAccess, TOKEN_PARAM } from "./access.ts";

/**
 * What every response of the board carries (the page, its files, the data, every refusal and
 * error). The CSP is a header, not a `<meta>`, because only a header can say `frame-ancestors`:
 * no other page may frame the board (clickjacking), and X-Frame-Options says the same to older
 * browsers. Only the page's own script and style run, nothing comes from the network, and no
 * URL (the printed one has the token) is sent on as a Referer.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/** `response` with SECURITY_HEADERS set (the board makes every response itself, so its headers can be set). */
export function secured(response: Response): Response {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}

/**
 * Who may read the board, in stages, each refusing on its own: the HTTP mode's guard (a Host
 * this machine answers to, a loopback Origin, no other credentials in the URL); an Origin, when
 * a browser sends one, naming this very server (a page of another local program on another port
 * may not read it either); a request another site's page made (Fetch Metadata) only when it opens
 * the page itself; and last this run's token (access.ts): the printed URL's, the cookie it
 * becomes, or a script's bearer token.
 */
export class BoardGuard {
  private readonly guard = new RequestGuard({
    loopback: true,
    allowedHosts: [],
    allowedOrigins: [],
    tokens: undefined,
  });
  readonly access: BoardAccess;

  /** `token` is for tests; a run makes its own. */
  constructor(token?: string) {
    this.access = new BoardAccess(token);
  }

  /** Undefined lets the request through; otherwise the refusal (or the token's redirect) to answer. */
  refuse(request: Request): Response | undefined {
    const url = new URL(request.url);
    // The board's own token parameter is the token stage's; any other credential in the URL is refused.
    const presented = url.searchParams.get(TOKEN_PARAM);
    if (presented !== null) url.searchParams.delete(TOKEN_PARAM);
    return (
      this.guard.admit(request, url) ??
      this.ownOrigin(request) ??
      this.ownSite(request) ??
      this.access.check(request, url, presented)
    );
  }

  private ownOrigin(request: Request): Response | undefined {
    const origin = request.headers.get("origin");
    if (origin === null || origin === "") return undefined;
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host !== undefined && host === request.headers.get("host")) return undefined;
    return Response.json({ error: `Forbidden: the origin ${origin} is not this board's` }, { status: 403 });
  }

  /**
   * Browsers say who made a request (`Sec-Fetch-Site`): the board's own page, or the person
   * (`none`: a typed or opened URL). Another page may only navigate to the board (a link); it may
   * not load its data, frame it, or use it as a script or an image. Cookies ignore ports, so a
   * page of another local program is "same-site" and would carry the board's cookie without this.
   */
  private ownSite(request: Request): Response | undefined {
    const site = request.headers.get("sec-fetch-site");
    if (site === null || site === "same-origin" || site === "none") return undefined;
    const navigation =
      request.headers.get("sec-fetch-mode") === "navigate" && request.headers.get("sec-fetch-dest") === "document";
    if (navigation) return undefined;
    return Response.json({ error: "Forbidden: another site's page may not load the board" }, { status: 403 });
  }
}
