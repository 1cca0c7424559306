import type { Candidate, LayerRef } from "../../src/registry/registry.ts";
import type { Skill } from "../../src/skill/skill.ts";

/**
 * A prompt skill as the registry holds it, for unit tests of what is built from candidates
 * (search, instructions, budgets): `fields` override the defaults, `description` first of all.
 */
export function promptCandidate(
  id: string,
  layer: LayerRef,
  fields: Partial<Skill> & { description: string },
  content: { template?: string; path?: string } = {},
): Candidate {
  const skill: Skill = {
    id,
    type: "prompt",
    tags: [],
    arguments: [],
    argumentsDeclared: false,
    exampleCount: 0,
    ...fields,
  };
  return {
    skill,
    layer,
    path: content.path ?? `/${id}.yaml`,
    source: `${id}.yaml`,
    content: { read: () => ({ ...(content.template !== undefined && { template: content.template }), examples: [] }) },
  };
}
