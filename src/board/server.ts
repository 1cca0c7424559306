/** The board's HTTP server: its routes, each answered only after the guard admits the request, every answer with the security headers. */
import type { BunRequest, Server } from "bun";
import { TOKEN_PARAM } from "./access.ts";
import { EventFeed } from "./events.ts";
import { BoardGuard, secured } from "./guard.ts";
import { pageFiles, servePageFile } from "./page-files.ts";
import type { BoardState } from "./state.ts";

/** A render's arguments are a form's worth of text: anything larger is not from the page. */
const MAX_RENDER_BODY_BYTES = 256 * 1024;

export interface BoardServing {
  /** `http://127.0.0.1:PORT/?token=…`: the one URL that opens this run's board (access.ts). */
  url: string;
  /** `http://127.0.0.1:PORT/`, for the log: the URL without its token. */
  address: string;
  /** Tells every open page that the board's version changed. */
  announce(version: number): void;
  stop(): Promise<void>;
}

const notFound = (what: string) => Response.json({ error: `no ${what}` }, { status: 404 });

/** A route's handler; its request's `params` are typed by the route's path (`/api/skill/:id`: `params.id`). */
type Handler<Path extends string> = (
  request: BunRequest<Path>,
  server: Server<undefined>,
) => Response | Promise<Response>;

/**
 * Every route answers only after the guard admits the request, and every answer (a refusal, a
 * redirect, a page, data, an error) carries the security headers.
 */
function guarded<Path extends string>(guard: BoardGuard, handler: Handler<Path>): Handler<Path> {
  return async (request, server) => secured(guard.refuse(request) ?? (await handler(request, server)));
}

async function renderRoute(state: BoardState, request: BunRequest<"/api/render/:id">): Promise<Response> {
  const text = await request.text();
  if (text.length > MAX_RENDER_BODY_BYTES) return Response.json({ error: "body too large" }, { status: 413 });
  let body: unknown;
  try {
    body = JSON.parse(text || "{}");
  } catch {
    return Response.json({ error: "the body is not JSON" }, { status: 400 });
  }
  const args = typeof body === "object" && body !== null ? (body as { arguments?: unknown }).arguments : undefined;
  const answer = await state.render(request.params.id, args);
  return answer ? Response.json(answer) : notFound("such skill");
}

/**
 * The board on 127.0.0.1: the page (Bun bundles its HTML, CSS and TypeScript, at build time in
 * the compiled binary; page-files.ts) and its data under /api/, every route behind the guard.
 */
export async function serveBoard(state: BoardState, port: number): Promise<BoardServing> {
  const guard = new BoardGuard();
  const feed = new EventFeed();
  const route = <Path extends string>(handler: Handler<Path>) => guarded(guard, handler);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    development: false,
    routes: {
      "/": route(async (request) => servePageFile(await pageFiles(), "/", request) ?? notFound("page")),
      "/favicon.ico": route(() => new Response(null, { status: 204 })),
      "/api/summary": route(
        async () => new Response(await state.summary(), { headers: { "Content-Type": "application/json" } }),
      ),
      "/api/search": route(async (request) =>
        Response.json({ ids: await state.search(new URL(request.url).searchParams.get("q") ?? "") }),
      ),
      "/api/skill/:id": route(async (request) => {
        const page = await state.skill(request.params.id);
        return page ? Response.json(page) : notFound("such skill");
      }),
      "/api/render/:id": { POST: route((request) => renderRoute(state, request)) },
      "/api/client/:key": route(async (request) => {
        const view = await state.client(request.params.key);
        return view ? Response.json(view) : notFound("such client");
      }),
      "/api/cost/:key": route(async (request) => {
        const view = await state.cost(request.params.key);
        return view ? Response.json(view) : notFound("such client");
      }),
      "/api/install/:key": route(async (request) => {
        const setup = await state.ideSetup(request.params.key);
        return setup ? Response.json(setup) : notFound("such client");
      }),
      "/api/usage": route(async () => Response.json(await state.usage())),
      "/api/usage/:id": route(async (request) => {
        const from = Number(new URL(request.url).searchParams.get("from") ?? Number.NaN);
        const view = await state.skillUsage(request.params.id, Number.isFinite(from) ? from : undefined);
        return view ? Response.json(view) : notFound("such skill");
      }),
      "/api/events": route((request, bun) => {
        bun.timeout(request, 0);
        return feed.open();
      }),
    },
    // The page's script and style (hashed names), and 404 for the rest.
    fetch: route(
      async (request) =>
        servePageFile(await pageFiles(), new URL(request.url).pathname, request) ?? notFound("such page"),
    ),
    // Says nothing of the request: its URL may hold the token.
    error: () => secured(Response.json({ error: "the board failed to answer" }, { status: 500 })),
  });
  const address = `http://127.0.0.1:${server.port}/`;
  return {
    url: `${address}?${TOKEN_PARAM}=${guard.access.token}`,
    address,
    announce: (version) => feed.announce("load", { version }),
    async stop() {
      feed.close();
      await server.stop(true);
    },
  };
}
