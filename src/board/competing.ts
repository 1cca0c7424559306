/**
 * The skills that compete for the same request, as the board shows them: the cost view's pairs
 * (`skill-central overlap`) and the Problems list's `competing-skills` warnings (`validate`),
 * from one search per load. It runs after the load is on screen, in slices between the page's
 * requests (a catalog of look-alike skills takes the search a good part of a second), and stops
 * when a newer load makes it moot; until it is done the cost view says it is computing.
 */
import type { Diagnostic } from "../diagnostics.ts";
import { type LoadResult, locatorsOf } from "../load/load-skills.ts";
import {
  COMPETING_THRESHOLD,
  competingFindings,
  distinctSkills,
  type Overlap,
  overlapInput,
  overlapSteps,
} from "../registry/overlap.ts";
import type { CompetingView } from "./wire.ts";

/** The pairs the cost view shows: the top of the list, as `budget` prints its top. */
const COMPETING_SHOWN = 10;

export interface Competing {
  warnings: Diagnostic[];
  view: CompetingView;
}

/** The search for `result`'s served skills, one slice a turn of the event loop; undefined when `current` turns false. */
export async function competingOf(result: LoadResult, current: () => boolean): Promise<Competing | undefined> {
  const skills = distinctSkills(result.registry.served());
  const steps = overlapSteps(skills.map(overlapInput), COMPETING_THRESHOLD);
  let found: Overlap | undefined;
  while (found === undefined) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!current()) return undefined;
    const step = steps.next();
    if (step.done) found = step.value;
  }
  const locate = locatorsOf(result);
  return {
    warnings: competingFindings(skills, found, (path) => locate(path)?.(["description"])),
    view: {
      state: "ready",
      pairs: found.pairs
        .slice(0, COMPETING_SHOWN)
        .map(({ a, b, score }) => ({ a, b, score: Math.round(score * 100) / 100 })),
      total: found.total,
      exact: found.exact,
    },
  };
}
