/**
 * Which `audit.allow` entry lets one skill through, the one rule every place that judges a skill
 * applies (the gate at `sync`, `audit.layers: all` at load, `skill-central audit`), so they never
 * disagree. A user's entry counts for any layer; a project's counts only within the bounds the
 * config merge gave it (src/config/audit-settings.ts says why): a skill of the project's own
 * layers, and, under the user's `layers: all`, not one the user's settings block. A project entry
 * that names the skill and its exact content but is out of bounds is said, so the person who
 * wrote it learns why it did nothing.
 */
import type { AuditAllow } from "../config/audit-settings.ts";
import type { Digest } from "../storage/digest.ts";
import type { Finding } from "./scan.ts";
import { anyReaches } from "./verdict.ts";

/** A project's entry that names this skill and content but may not let it through: the file, and why. */
export interface IgnoredPin {
  file: string;
  message: string;
}

export interface PinOutcome {
  /** The entry that lets the skill through, if any. */
  pin?: AuditAllow;
  /** A project's entries that would have, each with why it does not. */
  ignored: IgnoredPin[];
}

/** The skill as judged: its id, its digest (undefined when not worked out), its layer and its findings. */
export interface PinnedSkill {
  id: string;
  digest?: Digest | undefined;
  layer: string;
  findings: readonly Pick<Finding, "severity">[];
}

export function pinOf(allow: readonly AuditAllow[], skill: PinnedSkill): PinOutcome {
  const ignored: IgnoredPin[] = [];
  if (skill.digest === undefined) return { ignored };
  const named = allow.filter((a) => a.skill === skill.id && a.digest === skill.digest);
  const mine = named.find((a) => a.project === undefined);
  if (mine) return { pin: mine, ignored };
  for (const entry of named) {
    const bounds = entry.project!;
    const about = `audit.allow entry for skill "${skill.id}" is ignored`;
    if (!bounds.layers.includes(skill.layer))
      ignored.push({
        file: bounds.file,
        message: `${about}: its layer "${skill.layer}" is not the project's, and a project may pin only its own layers' skills`,
      });
    else if (bounds.floor !== undefined && anyReaches(skill.findings, bounds.floor))
      ignored.push({
        file: bounds.file,
        message: `${about}: your user config audits every layer (audit.layers: all) and blocks it, and a project may not let through what your config blocks`,
      });
    else return { pin: entry, ignored: [] };
  }
  return { ignored };
}

/** The hint shown with an ignored project entry. */
export const IGNORED_PIN_HINT =
  "once reviewed, pin that version in your user config (~/.skill-central/config.yaml), audit.allow";
