import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import { SkillCentralError, type ErrorCode as LocalCode } from "../errors.ts";

/**
 * An error whose `message` goes on the wire exactly as written (the SDK sends a thrown error's
 * `code`, `message` and `data` unchanged). `data` carries machine-readable detail, such as the
 * `uri` of a resource that does not exist.
 */
export class WireError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Longest stretch of client-supplied text an error message quotes. */
export const MAX_QUOTED_CHARS = 200;
/** Longest error message sent at all: a backstop for messages that quote input we did not cap. */
export const MAX_MESSAGE_CHARS = 500;

/**
 * Client input as an error message quotes it: whole when short, else its first
 * `MAX_QUOTED_CHARS` characters and an ellipsis, so a megabyte-long name or URI costs the reply
 * nothing. Quote a value once per message.
 */
export function excerpt(value: string, max = MAX_QUOTED_CHARS): string {
  if (value.length <= max) return value;
  // Never end on half of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(value[max - 1]!) ? max - 1 : max;
  return `${value.slice(0, end)}…`;
}

const WIRE_CODES: Record<LocalCode, number> = {
  "unknown-prompt": ProtocolErrorCode.InvalidParams,
  "unknown-tool": ProtocolErrorCode.InvalidParams,
  "unknown-skill": ProtocolErrorCode.InvalidParams,
  "missing-argument": ProtocolErrorCode.InvalidParams,
  "invalid-arguments": ProtocolErrorCode.InvalidParams,
  "invalid-params": ProtocolErrorCode.InvalidParams,
  "no-skills-for-tags": ProtocolErrorCode.InvalidParams,
  "tags-required": ProtocolErrorCode.InvalidParams,
  "render-failed": ProtocolErrorCode.InternalError,
};

/**
 * Maps our errors to their JSON-RPC form; anything unexpected becomes an internal error. Every
 * message is bounded: errors raised below this layer may quote a client's input whole.
 */
export function toWireError(error: unknown): WireError {
  if (error instanceof WireError) return error.message.length <= MAX_MESSAGE_CHARS ? error : new WireError(error.code, excerpt(error.message, MAX_MESSAGE_CHARS), error.data);
  if (error instanceof SkillCentralError) return new WireError(WIRE_CODES[error.code], excerpt(error.message, MAX_MESSAGE_CHARS));
  return new WireError(ProtocolErrorCode.InternalError, excerpt(error instanceof Error ? error.message : String(error), MAX_MESSAGE_CHARS));
}
