/** `skill-central mcp`, the default command: the server's spec (stdio, or HTTP with `--http`); its process is src/serve/'s. */
import { resolve } from "node:path";
import { CATALOG_MODES } from "../config/catalog-settings.ts";
import { LOG_FORMATS } from "../serve/log.ts";
import { ELICITATION_MODES } from "../config/elicitation-settings.ts";
import { command, SERVING, UsageError } from "./support/command.ts";
import { choice, flag, httpUrl, list, positiveInt, value, wholeNumber } from "./support/options.ts";

/** Refused without `--http`. Their defaults live with the HTTP server, which is imported only to serve. */
const HTTP_OPTIONS = {
  port: wholeNumber(0, 65_535, "<n>", "HTTP port (default 8740; 0 picks a free one)"),
  host: value("<addr>", "HTTP address to listen on (default 127.0.0.1; others need tokens)", (raw) => {
    if (raw.trim() === "") throw new UsageError("--host needs an address, e.g. 127.0.0.1 or 0.0.0.0");
    return raw;
  }),
  stateless: flag("HTTP without sessions or per-client state, for replicas behind a load balancer"),
  "token-file": value("<path>", 'Bearer tokens, one "LABEL TOKEN" per line (also: SKILL_CENTRAL_TOKEN)', (raw) =>
    resolve(process.cwd(), raw),
  ),
  "public-url": httpUrl(
    "<url>",
    "The canonical URL clients use, e.g. https://skills.example.com/mcp (over http.publicUrl)",
  ),
  "allow-origin": list(
    "<origin>",
    "A browser origin that may call the server, e.g. https://app.example.com (repeatable)",
  ),
  "allow-host": list("<name>", "A host name the server answers to besides localhost (repeatable)"),
  "max-sessions": positiveInt("<n>", "Open HTTP sessions at most (default 1000)"),
  "session-timeout": positiveInt("<s>", "Close an HTTP session idle this many seconds (default 1800)"),
  keepalive: wholeNumber(1, 120, "<s>", "Seconds between SSE keep-alive comments on open streams (default 15)"),
};

/**
 * The server, the default command. The entry point imports this spec to find a command after the
 * server's options; the server itself (src/serve/, and the MCP SDK) is imported only when it runs.
 */
export const spec = command({
  name: "mcp",
  summary: "Run the MCP server: stdio (the default when no command is given), or HTTP for a team with --http",
  usage:
    "mcp [--no-watch] [--page-size <n>] [--catalog auto|on|off] [--elicitation auto|off] [--debug-timing] [--log-format text|json] [--http [--port <n>] [--host <addr>] [--stateless] [--token-file <path>] …]",
  description:
    "Serves the skills over MCP on stdin/stdout (JSON-RPC only on stdout; logs on stderr).\n" +
    "With --http, serves Streamable HTTP at /mcp instead (2025-11-25 sessions and 2026-07-28 requests on one port), with\n" +
    "GET /healthz and /readyz; an address other than loopback needs bearer tokens (--token-file or SKILL_CENTRAL_TOKEN).",
  options: {
    watch: flag("Do not reload when skill or config files change", { negatable: true }),
    "page-size": positiveInt("<n>", "Page size for list requests (a positive whole number)"),
    catalog: choice(
      CATALOG_MODES,
      "Catalog tools (find_skills, load_skill, run_skill_tool): per client (auto, the default), always, or never",
    ),
    elicitation: choice(
      ELICITATION_MODES,
      "Ask the user, through the client, for required arguments a request left out (auto, the default), or never (off)",
    ),
    "debug-timing": flag("Print load timings to stderr"),
    "log-format": choice(LOG_FORMATS, "The log on stderr: text lines (the default) or one JSON object per line", {
      default: "text",
    }),
    http: flag("Serve Streamable HTTP at /mcp instead of stdio"),
    ...HTTP_OPTIONS,
  },
  examples: [
    "skill-central mcp",
    "skill-central mcp --cwd /path/to/project --no-builtin",
    "skill-central mcp --http --port 8740",
    "skill-central mcp --http --host 0.0.0.0 --token-file /etc/skill-central/tokens --stateless",
  ],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const { options } = ctx;
    const pageSize = options["page-size"];
    const catalog = options.catalog;
    const elicitation = options.elicitation;
    const mcpOptions = {
      cwd: ctx.cwd,
      ...(ctx.builtin === false && { builtin: false as const }),
      debugTiming: options["debug-timing"],
      logFormat: options["log-format"],
      watch: options.watch,
      ...(pageSize !== undefined && { pageSize }),
      ...(catalog !== undefined && { catalog }),
      ...(elicitation !== undefined && { elicitation }),
    };
    if (options.http) {
      const [{ runHttp }, { StartError }, http] = await Promise.all([
        import("../serve/http.ts"),
        import("../serve/start-error.ts"),
        import("../mcp/http/options.ts"),
      ]);
      const port = options.port ?? http.DEFAULT_PORT;
      const host = options.host ?? http.DEFAULT_HOST;
      const tokenFile = options["token-file"];
      const publicUrl = options["public-url"];
      const serving = runHttp(mcpOptions, {
        host,
        port,
        stateless: options.stateless,
        ...(tokenFile !== undefined && { tokenFile }),
        ...(publicUrl !== undefined && { publicUrl }),
        allowedOrigins: options["allow-origin"],
        allowedHosts: options["allow-host"],
        maxSessions: options["max-sessions"] ?? http.DEFAULT_MAX_SESSIONS,
        sessionIdleMs: (options["session-timeout"] ?? http.DEFAULT_SESSION_IDLE_MS / 1000) * 1000,
        keepAliveMs: (options.keepalive ?? http.DEFAULT_KEEPALIVE_MS / 1000) * 1000,
      });
      // A token file that cannot be used, an exposed address without tokens or a port in use: the
      // server does not start, and the command line says why.
      await serving.catch((error: unknown) => {
        throw error instanceof StartError ? new UsageError(error.message) : error;
      });
      return SERVING;
    }
    const httpOnly = Object.keys(HTTP_OPTIONS).find((name) => ctx.given.has(name));
    if (httpOnly !== undefined) throw new UsageError(`--${httpOnly} applies to the HTTP server: add --http`);
    const { runStdio } = await import("../serve/stdio.ts");
    await runStdio(mcpOptions);
    return SERVING;
  },
});
