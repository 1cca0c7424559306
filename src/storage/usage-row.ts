/**
 * One use of a skill as the store keeps it, whichever backend: when, which skill (id, layer and
 * the digest of what was served), which client and caller, which project, and the outcome. Never
 * argument values or rendered text, and no string longer than usage-bounds.ts allows.
 */
import type { UseOutcome } from "./usage-report.ts";

export interface StoredUse {
  /** Milliseconds since the epoch. */
  at: number;
  skill: string;
  layer: string;
  /** The digest of the skill as served (`sha256:…`), when known. */
  digest?: string;
  /** The client's `clientInfo.name`, when it gave one. */
  client?: string;
  /** Over HTTP, who signed in (token label or OAuth subject); stdio has none. */
  caller?: string;
  /** The project's identity (project-identity.ts): never a path in clear. */
  project?: string;
  outcome: UseOutcome;
  /** The request that used it (`prompts/get`, `tools/call`, `load_skill`, …). */
  via: string;
}
