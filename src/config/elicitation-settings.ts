/**
 * Whether the server asks a person, through the client, for required arguments a request left
 * out (docs/protocol.md). Declared in a config file (`elicitation: auto | off`, or
 * `elicitation: { mode, stateKeyFile }`) and on the command line (`mcp --elicitation off`); the
 * project's file wins over the user's, the flag over both.
 */

import type { ReportProblem } from "./config-problem.ts";
import { type BlockOf, NON_BLANK, readBlock } from "./config-schema.ts";
import { type MergeRules, mergeSettings } from "./merge-settings.ts";

/** `auto`: ask clients that declared the capability; `off`: never ask (today's errors). */
export const ELICITATION_MODES = ["auto", "off"] as const;
export type ElicitationMode = (typeof ELICITATION_MODES)[number];

const HINT = "elicitation: auto (the default) or off, or { mode: auto, stateKeyFile: ./state.key }";
// YAML 1.1 readers (and people) write off as a boolean: `false` is off, `true` is auto.
const MODE = { anyOf: [{ enum: ELICITATION_MODES }, { type: "boolean" }] } as const;

/** `elicitation:` in a config file: a mode, or `{ mode, stateKeyFile }`. */
export const ElicitationBlock = {
  $id: "elicitation",
  anyOf: [
    MODE,
    {
      type: "object",
      additionalProperties: false,
      properties: {
        mode: { ...MODE, errorMessage: "must be auto or off", hint: HINT },
        stateKeyFile: { ...NON_BLANK, errorMessage: "must be a path to a file", hint: HINT },
      },
    },
  ],
  errorMessage: "must be auto or off, or a mapping { mode, stateKeyFile }",
  hint: HINT,
} as const;

const modeOf = (mode: BlockOf<typeof MODE>): ElicitationMode =>
  mode === true ? "auto" : mode === false ? "off" : mode;

/**
 * One file's `elicitation:`; undefined when it is ignored (each problem reported). `resolvePath`
 * makes `stateKeyFile` absolute as the file's other paths are.
 */
export function readElicitationSettings(
  value: unknown,
  resolvePath: (path: string) => string,
  report: ReportProblem,
): Partial<ElicitationSettings> | undefined {
  const block = readBlock(ElicitationBlock, value, report, { key: "elicitation" });
  if (block === undefined) return undefined;
  if (typeof block !== "object") return { mode: modeOf(block) };
  const settings: Partial<ElicitationSettings> = {};
  if (block.mode !== undefined) settings.mode = modeOf(block.mode);
  if (block.stateKeyFile !== undefined) settings.stateKeyFile = resolvePath(block.stateKeyFile.trim());
  return settings;
}

/**
 * The settings in effect: the mode, and `stateKeyFile` (absolute), a file holding the key that
 * protects the state a 2026-07-28 request carries between rounds (at least 32 bytes). Replicas
 * behind one load balancer share it, so a retry may land on any of them; without it each process
 * makes its own key.
 */
export type ElicitationSettings = { mode: ElicitationMode } & Pick<
  Extract<BlockOf<typeof ElicitationBlock>, object>,
  "stateKeyFile"
>;

export const DEFAULT_ELICITATION_SETTINGS: ElicitationSettings = Object.freeze({ mode: "auto" });

const ELICITATION_RULES: MergeRules<ElicitationSettings> = { mode: "later", stateKeyFile: "later" };

/** Later declarations win key by key: user config, then project config, then the command line. */
export function mergeElicitationSettings(
  ...layers: readonly (Partial<ElicitationSettings> | undefined)[]
): ElicitationSettings {
  return mergeSettings(ELICITATION_RULES, DEFAULT_ELICITATION_SETTINGS, layers);
}
