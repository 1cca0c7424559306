/**
 * The board run's secret, as Jupyter has one: the board shows every layer and the usage history,
 * and 127.0.0.1 is every local user's, so each run makes a random token that only the URL it
 * prints (and opens) carries. Opening that URL trades the token for a cookie and redirects to the
 * same page without it (out of the history and any Referer); after that the page's requests carry
 * the cookie. A script presents the token as `Authorization: Bearer <token>`. This module owns the
 * token, its cookie and that exchange; the guard (guard.ts) runs it as its last stage.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { sha256Bytes } from "../storage/digest.ts";

/** The query parameter of the printed URL. */
export const TOKEN_PARAM = "token";
/** 256 bits from the system's CSPRNG, base64url: 43 characters, safe in a URL, a cookie and a header. */
const TOKEN_BYTES = 32;

/** Where the refusal points the reader: the one place the token is shown. */
const OPEN_THE_URL =
  "open the URL `skill-central board` printed (the first line on its stdout, with ?token=…); a board started again prints a new one";

const REFUSAL_PAGE = (title: string, text: string) =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>skill-central board: ${title}</title></head>` +
  `<body><h1>${title}</h1><p>${text}</p><p>This board answers only the browser that opened the URL ` +
  "<code>skill-central board</code> printed: the first line on its stdout, ending in <code>?token=…</code>. " +
  "Open that URL; a board started again prints a new one.</p></body></html>\n";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page that goes on to `location` at once (a refresh, which the CSP allows: no script), with a link besides. */
export function forwardingPage(location: string): string {
  const href = escapeHtml(location);
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${href}">` +
    `<title>skill-central board</title></head><body><p><a href="${href}">Open the board</a></p></body></html>\n`
  );
}

/**
 * Refuses with a short page for a person (a page's URL) or a JSON error for a script (`/api/…`),
 * both saying to open the printed URL. Never echoes what was presented.
 */
function refusal(url: URL, status: 401 | 403, title: string, text: string): Response {
  const headers: Record<string, string> =
    status === 401 ? { "WWW-Authenticate": 'Bearer realm="skill-central board"' } : {};
  if (url.pathname.startsWith("/api/"))
    return Response.json({ error: `${text}: ${OPEN_THE_URL}` }, { status, headers });
  return new Response(REFUSAL_PAGE(title, text), {
    status,
    headers: { ...headers, "Content-Type": "text/html;charset=utf-8" },
  });
}

export class BoardAccess {
  /** This run's token: shown only in the printed URL. */
  readonly token: string;
  private readonly digest: Buffer;

  constructor(token: string = randomBytes(TOKEN_BYTES).toString("base64url")) {
    this.token = token;
    this.digest = sha256Bytes(token);
  }

  /**
   * The cookie is per port: cookies ignore ports, so two boards on one machine (or a board started
   * again on another port) would otherwise overwrite each other's.
   */
  static cookieName(url: URL): string {
    return `skill-central-board-${url.port || "80"}`;
  }

  /** Compares digests of equal length in constant time: neither the content nor the length leaks. */
  matches(candidate: string): boolean {
    return timingSafeEqual(sha256Bytes(candidate), this.digest);
  }

  /**
   * The token stage. `url` is the request's URL with the token parameter taken out, and
   * `presented` that parameter (null when there was none). Undefined admits the request.
   */
  check(request: Request, url: URL, presented: string | null): Response | undefined {
    if (presented !== null) return this.exchange(request, url, presented);
    if (this.carried(request, url)) return undefined;
    return refusal(url, 401, "Open the link the board printed", "This request carries no token of this board run");
  }

  /** The printed URL opened: its token becomes the cookie, and the page loads again without it. */
  private exchange(request: Request, url: URL, presented: string): Response {
    if (!this.matches(presented))
      return refusal(url, 403, "This link is not this board's", "The token in this URL is not this board run's");
    if (request.method !== "GET" && request.method !== "HEAD")
      return refusal(
        url,
        403,
        "Open the link the board printed",
        "The token in the URL only opens the page; send the cookie it sets, or Authorization: Bearer",
      );
    // No Secure: the board is plain http on 127.0.0.1, where a Secure cookie would never be sent back.
    const cookie = `${BoardAccess.cookieName(url)}=${this.token}; HttpOnly; SameSite=Strict; Path=/`;
    const location = `${url.pathname}${url.search}`;
    const headers = { "Set-Cookie": cookie, "Cache-Control": "no-store" };
    const site = request.headers.get("sec-fetch-site");
    if (site === null || site === "none" || site === "same-origin")
      return new Response(null, { status: 303, headers: { ...headers, Location: location } });
    // Opened from another site's page (a link in a web page, a file): a browser does not send a
    // Strict cookie on a redirect that another site started, so the page goes on by itself
    // (a refresh the board's own page makes is same-site), its entry replaced in the history.
    return new Response(forwardingPage(location), {
      headers: { ...headers, "Content-Type": "text/html;charset=utf-8" },
    });
  }

  /** The cookie of this board's port, or a bearer token (a script's), matching this run's token. */
  private carried(request: Request, url: URL): boolean {
    const authorization = request.headers.get("authorization");
    const bearer = authorization === null ? undefined : /^Bearer +(\S+)$/i.exec(authorization)?.[1];
    if (bearer !== undefined && this.matches(bearer)) return true;
    const name = BoardAccess.cookieName(url);
    const header = request.headers.get("cookie") ?? "";
    // Every cookie of that name is tried: an older run's may still be there beside this one's.
    let found = false;
    for (const pair of header.split(";")) {
      const at = pair.indexOf("=");
      if (at < 0 || pair.slice(0, at).trim() !== name) continue;
      if (this.matches(pair.slice(at + 1).trim())) found = true;
    }
    return found;
  }
}
