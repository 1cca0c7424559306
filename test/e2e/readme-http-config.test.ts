import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connectHttp, INITIALIZE, postJson, startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { fencedBlocks, section } from "../helpers/markdown.ts";
import { REPO_ROOT, SOURCE_ENTRY, SOURCE_TARGET } from "../helpers/server.ts";

/**
 * The "Connecting clients" snippets of docs/http.md (the README links there) are what people paste: each is parsed the way
 * its client reads it (JSON, JSON with an input prompt, TOML, a shell line), turned into the URL
 * and headers that client would send, and used to connect to a real token-protected server.
 */

const SERVER_NAME = "skill-central";
const PLACEHOLDER_URL = "https://skills.example.com/mcp";
const TOKEN_VAR = "SKILL_CENTRAL_TOKEN";
const TOKEN = "team-token-0123456789abcdef";

type ClientName = "Claude Code" | "Cursor" | "VS Code" | "Windsurf" | "Codex";

interface RemoteConfig {
  client: ClientName;
  url: string;
  headers: Record<string, string>;
  where: string;
}

/** `${env:NAME}` (Cursor, Windsurf) and `$NAME` (a shell) from `env`; `${input:id}` (VS Code) from `inputs`. */
function expand(value: string, env: Record<string, string>, inputs: Record<string, string> = {}): string {
  return value
    .replace(/\$\{env:([A-Z0-9_]+)\}/g, (_, name: string) => env[name] ?? `<unset ${name}>`)
    .replace(/\$\{input:([\w-]+)\}/g, (_, id: string) => inputs[id] ?? `<no input ${id}>`)
    .replace(/\$([A-Z_][A-Z0-9_]*)/g, (_, name: string) => env[name] ?? `<unset ${name}>`);
}

/** A shell line split into words: double quotes group, nothing else is special. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

function headersOf(value: unknown, where: string): Record<string, string> {
  if (typeof value !== "object" || value === null || Object.values(value).some((v) => typeof v !== "string"))
    throw new Error(`${where}: headers must be an object of strings`);
  return value as Record<string, string>;
}

/** Every remote config in the section, read as its client reads it (placeholders left in). */
function remoteConfigs(markdown: string, env: Record<string, string>, token: string): RemoteConfig[] {
  const configs: RemoteConfig[] = [];
  for (const block of fencedBlocks(markdown)) {
    const where = `docs/http.md "Connecting clients", block ${configs.length + 1} (${block.lang})`;
    if (block.lang === "sh") {
      for (const line of block.body.split("\n").filter((l) => l.startsWith("claude mcp add"))) {
        const words = shellWords(line);
        const flags = new Map<string, string[]>();
        const positionals: string[] = [];
        for (let i = 3; i < words.length; i++) {
          if (words[i]!.startsWith("--")) flags.set(words[i]!, [...(flags.get(words[i]!) ?? []), words[++i]!]);
          else positionals.push(words[i]!);
        }
        expect({ where, transport: flags.get("--transport"), positionals: positionals.length }).toEqual({
          where,
          transport: ["http"],
          positionals: 2,
        });
        expect(positionals[0]).toBe(SERVER_NAME);
        const headers: Record<string, string> = {};
        for (const header of flags.get("--header") ?? []) {
          const colon = header.indexOf(":");
          headers[header.slice(0, colon).trim()] = expand(header.slice(colon + 1).trim(), env);
        }
        configs.push({ client: "Claude Code", url: positionals[1]!, headers, where });
      }
    } else if (block.lang === "json") {
      const doc = JSON.parse(block.body) as {
        mcpServers?: Record<string, Record<string, unknown>>;
        servers?: Record<string, Record<string, unknown>>;
        inputs?: { id: string; type: string; password?: boolean }[];
      };
      if (doc.servers) {
        // VS Code: "type": "http"; ${input:…} is asked for once, from the matching inputs entry.
        const entry = doc.servers[SERVER_NAME]!;
        expect(entry.type).toBe("http");
        const inputs = Object.fromEntries(
          (doc.inputs ?? []).filter((i) => i.type === "promptString" && i.password === true).map((i) => [i.id, token]),
        );
        const headers = Object.fromEntries(
          Object.entries(headersOf(entry.headers, where)).map(([k, v]) => [k, expand(v, {}, inputs)]),
        );
        configs.push({ client: "VS Code", url: entry.url as string, headers, where });
      } else {
        const entry = doc.mcpServers![SERVER_NAME]!;
        const client: ClientName = "serverUrl" in entry ? "Windsurf" : "Cursor";
        const headers = Object.fromEntries(
          Object.entries(headersOf(entry.headers, where)).map(([k, v]) => [k, expand(v, env)]),
        );
        configs.push({ client, url: (entry.serverUrl ?? entry.url) as string, headers, where });
      }
    } else if (block.lang === "toml") {
      // Codex: url, and the bearer token from the variable bearer_token_env_var names.
      const doc = Bun.TOML.parse(block.body) as {
        mcp_servers: Record<string, { url: string; bearer_token_env_var?: string }>;
      };
      const entry = doc.mcp_servers[SERVER_NAME]!;
      expect(entry.bearer_token_env_var).toBe(TOKEN_VAR);
      configs.push({
        client: "Codex",
        url: entry.url,
        headers: { Authorization: `Bearer ${env[entry.bearer_token_env_var!] ?? ""}` },
        where,
      });
    }
  }
  return configs;
}

describe(`docs/http.md "Connecting clients"`, () => {
  let text: string;
  let fixture: Fixture;
  let server: HttpServer;

  beforeAll(async () => {
    text = section(await Bun.file(join(REPO_ROOT, "docs", "http.md")).text(), "## Connecting clients");
    fixture = makeFixture();
    server = await startHttpServer({
      target: SOURCE_TARGET,
      cwd: fixture.cwd,
      home: fixture.home,
      args: [],
      env: { [TOKEN_VAR]: TOKEN },
    });
  });
  afterAll(async () => {
    await server?.stop();
    fixture?.cleanup();
  });

  test("gives one config for each of Claude Code, Cursor, VS Code, Windsurf and Codex, all for the same URL and token", () => {
    const configs = remoteConfigs(text, { [TOKEN_VAR]: TOKEN }, TOKEN);
    expect(configs.map((c) => c.client).sort()).toEqual(["Claude Code", "Codex", "Cursor", "VS Code", "Windsurf"]);
    for (const config of configs) {
      expect({ client: config.client, url: config.url, headers: config.headers }).toEqual({
        client: config.client,
        url: PLACEHOLDER_URL,
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
    }
    // The token comes from a variable (or VS Code's stored input), never written into a file.
    expect(text).not.toContain(TOKEN);
  });

  test("every serve command in the README and docs/http.md uses options mcp --help lists", async () => {
    const help = Bun.spawnSync([process.execPath, SOURCE_ENTRY, "mcp", "--help"]).stdout.toString();
    const docs = await Promise.all(["README.md", "docs/http.md"].map((f) => Bun.file(join(REPO_ROOT, f)).text()));
    const serves = docs.flatMap((doc) =>
      fencedBlocks(doc)
        .flatMap((b) => b.body.split("\n"))
        .filter((l) => l.startsWith("skill-central mcp --http")),
    );
    expect(serves.length).toBeGreaterThanOrEqual(2);
    for (const serve of serves)
      for (const flag of serve.match(/--[a-z-]+/g)!)
        expect({ serve, flag, listed: help.includes(`  ${flag}`) }).toEqual({ serve, flag, listed: true });
  });

  test("each config, its URL pointed at a running server, connects and lists the skills; without the token it is refused", async () => {
    const configs = remoteConfigs(text, { [TOKEN_VAR]: TOKEN }, TOKEN);
    for (const config of configs) {
      const url = config.url.replace(new URL(PLACEHOLDER_URL).origin, server.base);
      for (const era of ["legacy", "modern"] as const) {
        const { client } = await connectHttp(url, era, config.headers);
        try {
          expect({ client: config.client, era, tools: (await client.listTools()).tools.length > 0 }).toEqual({
            client: config.client,
            era,
            tools: true,
          });
        } finally {
          await client.close();
        }
      }
    }
    expect((await postJson(server.url, INITIALIZE)).status).toBe(401);
    const unset = remoteConfigs(text, {}, "");
    expect(unset.every((c) => c.headers.Authorization !== `Bearer ${TOKEN}`)).toBe(true);
  });
});
