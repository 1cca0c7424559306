/**
 * Whether the server asks a person, through the client, for required arguments a request left
 * out (docs/protocol.md). Declared in a config file (`elicitation: auto | off`, or
 * `elicitation: { mode, stateKeyFile }`) and on the command line (`mcp --elicitation off`); the
 * project's file wins over the user's, the flag over both.
 */

/** `auto`: ask clients that declared the capability; `off`: never ask (today's errors). */
export type ElicitationMode = "auto" | "off";
export const ELICITATION_MODES: readonly ElicitationMode[] = ["auto", "off"];

export interface ElicitationSettings {
  mode: ElicitationMode;
  /**
   * A file holding the key that protects the state a 2026-07-28 request carries between rounds
   * (at least 32 bytes). Replicas behind one load balancer share it, so a retry may land on any
   * of them; without it each process makes its own key.
   */
  stateKeyFile?: string;
}

export const DEFAULT_ELICITATION_SETTINGS: ElicitationSettings = Object.freeze({ mode: "auto" });

export function isElicitationMode(value: unknown): value is ElicitationMode {
  return typeof value === "string" && (ELICITATION_MODES as readonly string[]).includes(value);
}

/** Later sources win key by key: user config, then project config, then the command line. */
export function mergeElicitationSettings(
  ...layers: readonly (Partial<ElicitationSettings> | undefined)[]
): ElicitationSettings {
  const merged: ElicitationSettings = { ...DEFAULT_ELICITATION_SETTINGS };
  for (const layer of layers) {
    if (layer?.mode !== undefined) merged.mode = layer.mode;
    if (layer?.stateKeyFile !== undefined) merged.stateKeyFile = layer.stateKeyFile;
  }
  return merged;
}
