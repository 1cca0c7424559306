import { RequestGuard } from "../mcp/http/request-guard.ts";

/**
 * The board's data answers only its own page: the HTTP mode's guard (a Host this machine
 * answers to, a loopback Origin, no credentials in the URL), and then an Origin, when a browser
 * sends one, naming this very server: a page served by another local program on another port
 * may not read the board either.
 */
export class BoardGuard {
  private readonly guard = new RequestGuard({
    loopback: true,
    allowedHosts: [],
    allowedOrigins: [],
    tokens: undefined,
  });

  /** Undefined lets the request through; otherwise the 403 (or 400) to answer. */
  refuse(request: Request): Response | undefined {
    const refused = this.guard.admit(request, new URL(request.url));
    if (refused) return refused;
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
}
