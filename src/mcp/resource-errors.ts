/** The error for a resource that does not exist: -32602 with the URI in `data` (SEP-2164), bounded however long the URI sent. */
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { quoted } from "../errors.ts";

/** Longest URI echoed whole in an error's `data`; a longer one is not echoed at all. */
export const MAX_ECHOED_URI_CHARS = 2048;

/**
 * -32602 with the URI in `data` (SEP-2164), so a client can match the error to its request. The
 * message quotes the URI once, capped, and `data` leaves out a URI too long to be a real one: a
 * client may send a megabyte of it.
 */
export function unknownResource(uri: string, why: string): ProtocolError {
  return invalidUri(`Unknown resource: ${quoted(uri)} (${why})`, uri);
}

/** -32602 about a URI the client sent, with it in `data` unless it is too long to be a real one. */
export function invalidUri(message: string, uri: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    message,
    uri.length <= MAX_ECHOED_URI_CHARS ? { uri } : undefined,
  );
}
