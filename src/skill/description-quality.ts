/**
 * A description is what a model chooses a skill by: one too short to say what the skill does or
 * when to use it ("SQL stuff", "Helper") is picked by chance, or never. The rule is deliberately
 * simple, so that it rarely misfires (docs/catalog.md): fewer than five words.
 */
import type { Diagnostic } from "../diagnostics.ts";

/** Fewer words than this cannot say both what a skill does and to what. */
export const MIN_DESCRIPTION_WORDS = 5;

const word = (w: string) => /[\p{L}\p{N}]/u.test(w);

/** Why `description` is too vague to choose by, or undefined when it is not. */
export function vagueDescription(id: string, description: string): string | undefined {
  const words = description.split(/\s+/).filter(word);
  if (words.length < MIN_DESCRIPTION_WORDS)
    return `${words.length === 1 ? "1 word" : `${words.length} words`}, too few to say what "${id}" does or when to use it`;
  return undefined;
}

/** The `vague-description` warning for a skill's file, at its description where that is known. */
export function vagueDescriptionWarning(
  id: string,
  description: string,
  file: string,
  position?: Diagnostic["position"],
): Diagnostic | undefined {
  const why = vagueDescription(id, description);
  if (why === undefined) return undefined;
  return {
    severity: "warning",
    code: "vague-description",
    file,
    ...(position && { position }),
    message: `the description of "${id}" is too vague to choose by: ${why}`,
    hint: "say what the skill does and when to use it, e.g. `Review a pull request for bugs and style; use before merging`",
  };
}
