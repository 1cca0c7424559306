import type { Server } from "bun";

/**
 * A real git smart-HTTP server on 127.0.0.1: Bun.serve in front of `git http-backend` (CGI), the
 * way Apache or nginx would run it. Serves every repository under `root` at
 * `http://127.0.0.1:<port>/<name>`; with `requireAuth`, every request gets a 401 Basic
 * challenge, so a client without credentials must give up (and not prompt).
 */
export interface GitHttpServer {
  url(repository: string): string;
  /** Requests received, for asserting the network was (or was not) used. */
  requests: number;
  stop(): Promise<void>;
}

function cgiEnvironment(request: Request, url: URL, root: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    REQUEST_METHOD: request.method,
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: request.headers.get("content-type") ?? "",
    REMOTE_ADDR: "127.0.0.1",
    REMOTE_USER: "",
    GIT_PROTOCOL: request.headers.get("git-protocol") ?? "",
    HTTP_CONTENT_ENCODING: request.headers.get("content-encoding") ?? "",
  };
}

export function serveGitHttp(root: string, options: { requireAuth?: boolean } = {}): GitHttpServer {
  const state = { requests: 0 };
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      state.requests++;
      if (options.requireAuth) {
        return new Response("authentication required\n", {
          status: 401,
          headers: { "WWW-Authenticate": 'Basic realm="skills"' },
        });
      }
      const url = new URL(request.url);
      const body = request.method === "POST" ? new Uint8Array(await request.arrayBuffer()) : undefined;
      const proc = Bun.spawn(["git", "http-backend"], {
        env: cgiEnvironment(request, url, root),
        stdin: body ?? "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const output = new Uint8Array(await new Response(proc.stdout).arrayBuffer());
      await proc.exited;
      // CGI: headers, a blank line, then the body.
      const text = new TextDecoder("latin1").decode(output.subarray(0, Math.min(output.length, 4096)));
      const split = text.indexOf("\r\n\r\n") >= 0 ? text.indexOf("\r\n\r\n") + 4 : text.indexOf("\n\n") + 2;
      const headers = new Headers();
      let status = 200;
      for (const line of text.slice(0, split).split(/\r?\n/)) {
        const colon = line.indexOf(":");
        if (colon < 0) continue;
        const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
        if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
        else headers.append(name, value);
      }
      return new Response(output.subarray(split), { status, headers });
    },
  });
  return {
    url: (repository) => `http://127.0.0.1:${server.port}/${repository}`,
    get requests() {
      return state.requests;
    },
    stop: () => server.stop(true),
  };
}
