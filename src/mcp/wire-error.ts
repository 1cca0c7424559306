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

/**
 * Longest error message sent at all. Messages quote a caller's input through `quoted()` (at most
 * 200 characters of it); this is the backstop for anything that did not.
 */
export const MAX_MESSAGE_CHARS = 500;

function bounded(message: string): string {
  return message.length <= MAX_MESSAGE_CHARS ? message : `${message.slice(0, MAX_MESSAGE_CHARS)}…`;
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
  "content-unavailable": ProtocolErrorCode.InternalError,
  "limit-exceeded": ProtocolErrorCode.InvalidParams,
};

/** Maps our errors to their JSON-RPC form; anything unexpected becomes an internal error. Every message is bounded. */
export function toWireError(error: unknown): WireError {
  if (error instanceof WireError) return error.message.length <= MAX_MESSAGE_CHARS ? error : new WireError(error.code, bounded(error.message), error.data);
  if (error instanceof SkillCentralError) return new WireError(WIRE_CODES[error.code], bounded(error.message));
  return new WireError(ProtocolErrorCode.InternalError, bounded(error instanceof Error ? error.message : String(error)));
}
