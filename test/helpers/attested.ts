/**
 * A server audits a snapshot's skills off the request path (registry/audit-attestation.ts): its
 * first listings carry no `dev.skill-central/audit` while the audit runs. A test that checks the
 * attestation lists again until every entry has it: each try waits on the server's answer, never
 * on a timer; the count is only a backstop.
 */
const AUDIT = "dev.skill-central/audit";

/** `list` answers a `skills/list` result (its `skills`, each with `_meta`). */
export async function untilAttested<T>(list: () => Promise<T>): Promise<T> {
  for (let tries = 0; tries < 100_000; tries++) {
    const listing = await list();
    const { skills } = listing as { skills: { _meta?: Record<string, unknown> }[] };
    if (skills.every((s) => s._meta?.[AUDIT] !== undefined)) return listing;
  }
  throw new Error("the attestations never came");
}
