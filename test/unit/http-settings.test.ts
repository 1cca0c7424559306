import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Diagnostic } from "../../src/diagnostics.ts";
import { readConfigFile } from "../../src/config/config-file.ts";
import type { HttpSettings } from "../../src/config/http-settings.ts";
import { resolveHttpSettings } from "../../src/config/resolve-config.ts";
import { makeFixture } from "../helpers/fixture.ts";

const fixture = makeFixture();
afterAll(() => fixture.cleanup());

async function read(text: string): Promise<{ http: unknown; warnings: string[] }> {
  const file = fixture.write("skill-central.yaml", text);
  const found: Diagnostic[] = [];
  const config = await readConfigFile(file, fixture.home, (d) => found.push(d));
  return {
    http: config.http,
    warnings: found.map((d) => `${d.position?.line}:${d.position?.column} ${d.message}${d.hint ? ` — ${d.hint}` : ""}`),
  };
}

/** What `readHttpSettings` declares for settings it can use, key by key. */
const usable = (settings: HttpSettings) =>
  Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, { ok: true, value }]));

describe("the http: key of a config file", () => {
  test("the pinned interface is read whole; tokenFile is resolved against the config file's folder", async () => {
    const { http, warnings } = await read(
      [
        "http:",
        "  publicUrl: https://skills.example.com/mcp",
        "  oauth:",
        "    issuer: https://login.example.com/realms/eng",
        "    audience: api://skills",
        "    scopes: [skills:read]",
        "    callerClaim: email",
        "    introspection: { url: https://login.example.com/introspect, clientId: skills, clientSecretEnv: SKILLS_SECRET }",
        "  metrics:",
        "    tokenFile: ./metrics-token",
      ].join("\n"),
    );
    expect(warnings).toEqual([]);
    expect(http).toEqual({
      publicUrl: { ok: true, value: "https://skills.example.com/mcp" },
      oauth: {
        ok: true,
        value: {
          issuer: "https://login.example.com/realms/eng",
          audience: "api://skills",
          scopes: ["skills:read"],
          callerClaim: "email",
          introspection: {
            url: "https://login.example.com/introspect",
            clientId: "skills",
            clientSecretEnv: "SKILLS_SECRET",
          },
        },
      },
      metrics: { ok: true, value: { tokenFile: join(fixture.cwd, "metrics-token") } },
    });
  });

  test("unknown keys warn at their position with a suggestion; bad values make their key unusable", async () => {
    const { http, warnings } = await read(
      ["http:", "  publicURL: x", "  oauth:", "    issuer: http://login.example.com", "    scope: [a]"].join("\n"),
    );
    expect(warnings).toEqual([
      '2:3 unknown key "http.publicURL" is ignored (known keys: publicUrl, oauth, metrics) — did you mean "publicUrl"?',
      '5:5 unknown key "http.oauth.scope" is ignored (known keys: issuer, audience, scopes, callerClaim, introspection) — did you mean "scopes"?',
      '4:5 "http.oauth.issuer" must be https (http:// only for a loopback host such as 127.0.0.1); mcp --http will not start with it',
    ]);
    expect(http).toEqual({
      oauth: {
        ok: false,
        problem: `${join(fixture.cwd, "skill-central.yaml")}:4:5: "http.oauth.issuer" must be https (http:// only for a loopback host such as 127.0.0.1); mcp --http will not start with it`,
      },
    });
  });

  test("http:// is accepted for a loopback issuer only; the project's keys win over the user's, oauth taken whole", async () => {
    fixture.write(
      "~/.skill-central/config.yaml",
      "http:\n  publicUrl: https://user.example.com/mcp\n  oauth: { issuer: https://user-idp.example.com, scopes: [a] }\n  metrics: { tokenFile: ./t }\n",
    );
    fixture.write("skill-central.yaml", "http:\n  oauth: { issuer: http://127.0.0.1:8080/realms/x }\n");
    const { settings, problems } = await resolveHttpSettings({ cwd: fixture.cwd, home: fixture.home });
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      publicUrl: "https://user.example.com/mcp",
      oauth: { issuer: "http://127.0.0.1:8080/realms/x", scopes: [], callerClaim: "sub" },
      metrics: { tokenFile: join(fixture.home, ".skill-central", "t") },
    });
    fixture.write("skill-central.yaml", "http:\n  oauth: { issuer: 'not a url' }\n");
    const broken = await resolveHttpSettings({ cwd: fixture.cwd, home: fixture.home });
    expect(broken.problems).toEqual([
      `${join(fixture.cwd, "skill-central.yaml")}:2:12: "http.oauth.issuer" must be an absolute URL like https://example.com/…; mcp --http will not start with it`,
    ]);
    fixture.remove("~/.skill-central/config.yaml");
  });

  test("each value the server cannot use is warned about at its key and refuses its key, with the same text", async () => {
    const REFUSED = "; mcp --http will not start with it";
    const cases: [string, string, string][] = [
      ["publicUrl: 42", "2:3", '"http.publicUrl" must be a URL (a string)'],
      ["publicUrl: https://skills.example.com/mcp?x=1", "2:3", '"http.publicUrl" must not have a query string'],
      ["publicUrl: https://u:p@skills.example.com/mcp", "2:3", '"http.publicUrl" must not carry credentials'],
      ["oauth: yes", "2:3", '"http.oauth" must be a mapping with at least "issuer"'],
      ["oauth: { audience: api://skills }", "2:3", '"http.oauth" needs "issuer"'],
      ["oauth: { issuer: ' ' }", "2:12", '"http.oauth.issuer" must be a URL (a string)'],
      ["oauth: { issuer: https://idp.example.com, audience: '' }", "2:45", '"http.oauth.audience" must be a string'],
      [
        "oauth: { issuer: https://idp.example.com, scopes: 7 }",
        "2:45",
        '"http.oauth.scopes" must be a list of scope names',
      ],
      [
        'oauth: { issuer: https://idp.example.com, scopes: [a, "b\\"c"] }',
        "2:57",
        '"http.oauth.scopes" entry 2 must be a scope name',
      ],
      [
        'oauth: { issuer: https://idp.example.com, scopes: "a \\"b" }',
        "2:45",
        '"http.oauth.scopes" must be a list of scope names',
      ],
      [
        "oauth: { issuer: https://idp.example.com, callerClaim: 'a b' }",
        "2:45",
        '"http.oauth.callerClaim" must be a claim name',
      ],
      [
        "oauth: { issuer: https://idp.example.com, introspection: x }",
        "2:45",
        '"http.oauth.introspection" must be a mapping { url, clientId, clientSecretEnv }',
      ],
      [
        "oauth: { issuer: https://idp.example.com, introspection: { url: https://idp.example.com/i } }",
        "2:45",
        '"http.oauth.introspection" needs "clientId" and "clientSecretEnv"',
      ],
      [
        "oauth: { issuer: https://idp.example.com, introspection: { url: http://idp.example.com/i, clientId: c, clientSecretEnv: S } }",
        "2:62",
        '"http.oauth.introspection.url" must be https (http:// only for a loopback host such as 127.0.0.1)',
      ],
      [
        "oauth: { issuer: https://idp.example.com, introspection: { url: https://idp.example.com/i, clientId: c, clientSecretEnv: 1S } }",
        "2:107",
        '"http.oauth.introspection.clientSecretEnv" must name an environment variable',
      ],
      ["metrics: [t]", "2:3", '"http.metrics" must be a mapping { tokenFile }'],
      ["metrics: { tokenFile: '' }", "2:14", '"http.metrics.tokenFile" must be a file path'],
    ];
    const file = join(fixture.cwd, "skill-central.yaml");
    for (const [line, at, message] of cases) {
      const key = line.slice(0, line.indexOf(":"));
      const other = key === "publicUrl" ? "" : "  publicUrl: https://ok.example.com/mcp\n";
      const { http, warnings } = await read(`http:\n  ${line}\n${other}`);
      // The hint after " — " is each key's own (the other tests assert some).
      expect(warnings.map((w) => w.split(" — ")[0])).toEqual([`${at} ${message}${REFUSED}`]);
      expect(http).toMatchObject({ [key]: { ok: false, problem: `${file}:${at}: ${message}${REFUSED}` } });
      if (key !== "publicUrl")
        expect(http).toMatchObject({ publicUrl: { ok: true, value: "https://ok.example.com/mcp" } });
    }
  });

  test("a block that is not a mapping is ignored; empty metrics, a space-separated scope string, trimmed values are usable", async () => {
    expect(await read("http: [publicUrl]\n")).toEqual({
      http: {},
      warnings: ['1:1 "http" must be a mapping with keys like publicUrl, oauth; ignored'],
    });
    const { http, warnings } = await read(
      [
        "http:",
        "  publicUrl: ' https://skills.example.com/mcp '",
        "  oauth: { issuer: ' https://idp.example.com ', scopes: ' a  b a ', audience: ' api://s ' }",
        "  metrics:",
      ].join("\n"),
    );
    expect(warnings).toEqual([]);
    expect(http).toEqual(
      usable({
        publicUrl: "https://skills.example.com/mcp",
        oauth: { issuer: "https://idp.example.com", audience: "api://s", scopes: ["a", "b"], callerClaim: "sub" },
        metrics: {},
      }),
    );
  });

  test("an unknown key beside a bad value warns only; the refusal names the bad value", async () => {
    const { http, warnings } = await read(
      "http:\n  oauth:\n    scope: [a]\n    issuer: https://idp.example.com\n    callerClaim: 'no spaces'\n",
    );
    expect(warnings).toEqual([
      '3:5 unknown key "http.oauth.scope" is ignored (known keys: issuer, audience, scopes, callerClaim, introspection) — did you mean "scopes"?',
      '5:5 "http.oauth.callerClaim" must be a claim name; mcp --http will not start with it — e.g. email',
    ]);
    expect(http).toEqual({
      oauth: {
        ok: false,
        problem: `${join(fixture.cwd, "skill-central.yaml")}:5:5: "http.oauth.callerClaim" must be a claim name; mcp --http will not start with it`,
      },
    });
    const unknownOnly = await read("http:\n  oauth: { issuer: https://idp.example.com, scope: [a] }\n");
    expect(unknownOnly.http).toEqual(
      usable({ oauth: { issuer: "https://idp.example.com", scopes: [], callerClaim: "sub" } }),
    );
  });
});
