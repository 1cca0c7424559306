import { describe, expect, test } from "bun:test";
import { BoardGuard, SECURITY_HEADERS, secured } from "../../src/board/guard.ts";

const TOKEN = "t0ken-of-this-run-0123456789abcdefghijklmno";
const URL_OF_BOARD = "http://127.0.0.1:8741/api/summary";
const COOKIE = `skill-central-board-8741=${TOKEN}`;
const request = (headers: Record<string, string>, url = URL_OF_BOARD, method = "GET") =>
  new Request(url, { headers, method });

describe("the board's guard", () => {
  const guard = new BoardGuard(TOKEN);
  const own = (headers: Record<string, string> = {}) => ({ host: "127.0.0.1:8741", cookie: COOKIE, ...headers });

  test("admits a request with no Origin (not a browser) to the board's own host, with this run's cookie", () => {
    expect(guard.refuse(request(own()))).toBeUndefined();
  });

  test("admits the board's own page (Origin equal to the Host it asked)", () => {
    expect(guard.refuse(request(own({ origin: "http://127.0.0.1:8741" })))).toBeUndefined();
    expect(
      guard.refuse(request(own({ host: "localhost:8741", origin: "http://localhost:8741" }), "http://localhost:8741/")),
    ).toBeUndefined();
  });

  test("refuses another site's page with 403", () => {
    expect(guard.refuse(request(own({ origin: "https://evil.example" })))?.status).toBe(403);
  });

  test("refuses a page of another local program (a loopback origin on another port) with 403", () => {
    expect(guard.refuse(request(own({ origin: "http://127.0.0.1:3000" })))?.status).toBe(403);
  });

  test("refuses a foreign Host (DNS rebinding) with 403", () => {
    expect(guard.refuse(request(own({ host: "evil.example:8741" })))?.status).toBe(403);
  });

  test("refuses a malformed Origin", () => {
    expect(guard.refuse(request(own({ origin: "not a url" })))?.status).toBe(403);
  });

  test("the Host and Origin stages come first: a foreign Origin with this run's token in the URL gets 403, no cookie", () => {
    const refused = guard.refuse(
      request({ host: "127.0.0.1:8741", origin: "https://evil.example" }, `http://127.0.0.1:8741/?token=${TOKEN}`),
    );
    expect(refused?.status).toBe(403);
    expect(refused?.headers.get("set-cookie")).toBeNull();
  });

  test("other credentials in the URL are still refused with 400 (only the board's own token parameter is its)", () => {
    expect(guard.refuse(request(own(), `${URL_OF_BOARD}?access_token=x`))?.status).toBe(400);
  });
});

describe("the board's token stage", () => {
  const guard = new BoardGuard(TOKEN);
  const host = { host: "127.0.0.1:8741" };

  test("each guard makes its own random token: 43 base64url characters (256 bits)", () => {
    const [a, b] = [new BoardGuard().access.token, new BoardGuard().access.token];
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
  });

  test("no cookie and no token: 401 with WWW-Authenticate, JSON for /api/…, a page for the rest", async () => {
    const api = guard.refuse(request(host))!;
    expect(api.status).toBe(401);
    expect(api.headers.get("www-authenticate")).toBe('Bearer realm="skill-central board"');
    expect(((await api.json()) as { error: string }).error).toContain("open the URL `skill-central board` printed");
    const page = guard.refuse(request(host, "http://127.0.0.1:8741/"))!;
    expect(page.status).toBe(401);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    expect(await page.text()).toContain("Open the link the board printed");
  });

  test("this run's token in the URL: 303 to the same URL without it, setting the HttpOnly SameSite=Strict cookie of this port", () => {
    const opened = guard.refuse(request(host, `http://127.0.0.1:8741/api/search?q=a&token=${TOKEN}&page=2`))!;
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe("/api/search?q=a&page=2");
    expect(opened.headers.get("set-cookie")).toBe(`${COOKIE}; HttpOnly; SameSite=Strict; Path=/`);
  });

  test("opened from another site's page (a link, a file): the cookie, and a page that refreshes to the URL without the token", async () => {
    const opened = guard.refuse(
      request(
        { ...host, "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" },
        `http://127.0.0.1:8741/?token=${TOKEN}&a=1`,
      ),
    )!;
    expect(opened.status).toBe(200);
    expect(opened.headers.get("set-cookie")).toBe(`${COOKIE}; HttpOnly; SameSite=Strict; Path=/`);
    expect(opened.headers.get("location")).toBeNull();
    const page = await opened.text();
    expect(page).toContain('<meta http-equiv="refresh" content="0;url=/?a=1">');
    expect(page).not.toContain(TOKEN);
  });

  test("a wrong token in the URL: 403 and no cookie; the token only opens a page by GET", () => {
    const wrong = guard.refuse(request(host, "http://127.0.0.1:8741/?token=nope"))!;
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(guard.refuse(request(host, `http://127.0.0.1:8741/api/render/x?token=${TOKEN}`, "POST"))?.status).toBe(403);
  });

  test("admits the cookie among others, or a bearer token; refuses another port's cookie and a wrong bearer", () => {
    expect(guard.refuse(request({ ...host, cookie: `a=1; ${COOKIE}; b=2` }))).toBeUndefined();
    expect(guard.refuse(request({ ...host, cookie: `skill-central-board-8741=old; ${COOKIE}` }))).toBeUndefined();
    expect(guard.refuse(request({ ...host, authorization: `Bearer ${TOKEN}` }))).toBeUndefined();
    expect(guard.refuse(request({ ...host, cookie: `skill-central-board-9999=${TOKEN}` }))?.status).toBe(401);
    expect(guard.refuse(request({ ...host, authorization: `Bearer ${TOKEN}x` }))?.status).toBe(401);
    expect(guard.refuse(request({ ...host, cookie: `skill-central-board-8741=${TOKEN.slice(0, -1)}` }))?.status).toBe(
      401,
    );
  });

  test("no refusal repeats the token it was given", async () => {
    for (const refused of [
      guard.refuse(request(host, `http://127.0.0.1:8741/?token=${TOKEN}x`))!,
      guard.refuse(request({ ...host, authorization: `Bearer ${TOKEN}x` }))!,
    ])
      expect(await refused.text()).not.toContain(TOKEN);
  });
});

describe("the board's Fetch Metadata stage", () => {
  const guard = new BoardGuard(TOKEN);
  const from = (site: string, mode: string, dest: string, url = URL_OF_BOARD) =>
    guard.refuse(
      request(
        {
          host: "127.0.0.1:8741",
          cookie: COOKIE,
          "sec-fetch-site": site,
          "sec-fetch-mode": mode,
          "sec-fetch-dest": dest,
        },
        url,
      ),
    )?.status;

  test("the board's own page and the person (a typed or opened URL) are admitted", () => {
    expect(from("same-origin", "cors", "empty")).toBeUndefined();
    expect(from("none", "navigate", "document", "http://127.0.0.1:8741/")).toBeUndefined();
  });

  test("another page (another port is same-site) may link to the board, not load its data or frame it", () => {
    for (const site of ["same-site", "cross-site"]) {
      expect(from(site, "navigate", "document", "http://127.0.0.1:8741/")).toBeUndefined();
      expect(from(site, "no-cors", "script")).toBe(403);
      expect(from(site, "cors", "empty")).toBe(403);
      expect(from(site, "navigate", "iframe", "http://127.0.0.1:8741/")).toBe(403);
    }
  });
});

describe("the board's response headers", () => {
  test("a CSP that forbids framing (frame-ancestors 'none') and only the page's own script, X-Frame-Options DENY, no Referer", () => {
    const response = secured(Response.json({}, { status: 404 }));
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(Object.keys(SECURITY_HEADERS).length).toBeGreaterThanOrEqual(4);
  });
});
