import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Diagnostic } from "../../src/diagnostics.ts";
import { readConfigFile } from "../../src/config/config-file.ts";
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
      '2:3 unknown key "http.publicURL" is ignored (known: publicUrl, oauth, metrics) — did you mean "publicUrl"?',
      '5:5 unknown key "http.oauth.scope" is ignored (known: issuer, audience, scopes, callerClaim, introspection) — did you mean "scopes"?',
      '4:5 "http.oauth.issuer" must be https (http:// only for a loopback host such as 127.0.0.1)',
    ]);
    expect(http).toMatchObject({ oauth: { ok: false, problem: expect.stringContaining("skill-central.yaml:4:5: ") } });
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
      `${join(fixture.cwd, "skill-central.yaml")}:2:12: "http.oauth.issuer" must be an absolute URL like https://example.com/…`,
    ]);
    fixture.remove("~/.skill-central/config.yaml");
  });
});
