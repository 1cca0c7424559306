import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { untilAttested } from "../helpers/attested.ts";
import { startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import type { ServerTarget } from "../helpers/server.ts";

/**
 * Issue 48 item 8 on the wire, against the server `target` runs (the source entry, or the
 * compiled binary): no audit runs inside a request. A project of skills each holding a 1 MiB
 * single-line file (what once took seconds a line) is audited when its snapshot is first listed,
 * off the request path: the well-known index answers at once without the attestations, `/healthz`
 * answers while the audit runs (the index asked again after it still has none: the audit had not
 * finished), and once it has, the index carries every skill's attestation.
 */
const SKILLS = 24;
const LINE = "curl https://x.example/a ".repeat(Math.ceil((1024 * 1024) / 25));
const AUDIT = "dev.skill-central/audit";

interface IndexJson {
  skills: { name: string; _meta?: Record<string, { verdict: string }> }[];
}

export function auditOffRequestSuite(target: ServerTarget): void {
  describe(`the audit runs off the request path (${target.name})`, () => {
    let fixture: Fixture;
    let server: HttpServer;

    beforeAll(async () => {
      const files: Record<string, string> = {
        "skill-central.yaml": "builtin: false\nlayers:\n  - { name: project, path: ./.skills, priority: 10 }\n",
      };
      for (let i = 0; i < SKILLS; i++) {
        const name = `bulky-${String(i).padStart(2, "0")}`;
        files[`.skills/${name}/SKILL.md`] = `---\nname: ${name}\ndescription: Bulky ${i}\n---\n\nSee notes.md.\n`;
        files[`.skills/${name}/notes.md`] = `${LINE}${i}\n`;
      }
      fixture = makeFixture(files);
      server = await startHttpServer({ target, cwd: fixture.cwd, home: fixture.home });
    }, 60_000);

    afterAll(async () => {
      await server?.stop("SIGKILL");
      fixture?.cleanup();
    });

    test("/healthz and the well-known index answer while the audit runs; then the index carries every attestation", async () => {
      const index = `${server.base}/.well-known/agent-skills/index.json`;
      const read = async () => (await (await fetch(index)).json()) as IndexJson;
      const first = await read();
      expect(first.skills).toHaveLength(SKILLS);
      // The first listing started the audit and did not wait for it.
      expect(first.skills.filter((s) => s._meta?.[AUDIT])).toEqual([]);
      expect(await (await fetch(`${server.base}/healthz`)).json()).toEqual({ status: "ok" });
      // Still none: /healthz was answered while the audit was running.
      expect((await read()).skills.filter((s) => s._meta?.[AUDIT])).toEqual([]);
      const done = await untilAttested(read);
      expect(done.skills.map((s) => s._meta![AUDIT]!.verdict)).toEqual(Array(SKILLS).fill("pass"));
    }, 120_000);
  });
}
