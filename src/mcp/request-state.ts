/**
 * The state a 2026-07-28 request carries between its rounds (`requestState`): minted here, sent
 * to the client, and back with the retry as attacker-controlled input, so it is HMAC-signed
 * (the SDK's codec: SHA-256, an expiry) and a state that fails verification is refused with
 * -32602. Signed, not encrypted: it holds nothing the client did not send or see.
 */
import {
  createRequestStateCodec,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";

export interface AskState {
  /** The method and the prompt or tool it was minted for: a state is good for that request only. */
  method: string;
  target: string;
  /** 1 for the first form, 2 for the one asked again after invalid values. */
  round: number;
  /** The arguments the form asked for. */
  names: string[];
}

/** The signed payload: short keys, since the client sends it back with every retry. */
interface StatePayload {
  m: string;
  t: string;
  r: number;
  n: string[];
}

type Codec = RequestStateCodec<StatePayload>;

/** Long enough for a person to fill in a form. */
const STATE_TTL_SECONDS = 1800;

/** Per process, made on first use: a retry must come back to the process that asked (stdio, one HTTP server). */
let processCodec: Codec | undefined;
/** Shared keys (stateless replicas): one codec per key, built once. */
const sharedCodecs = new Map<string, Codec>();

function codecFor(sharedKey: Uint8Array | undefined): Codec {
  if (sharedKey === undefined) {
    processCodec ??= createRequestStateCodec<StatePayload>({
      key: crypto.getRandomValues(new Uint8Array(32)),
      ttlSeconds: STATE_TTL_SECONDS,
    });
    return processCodec;
  }
  const id = Buffer.from(sharedKey).toString("base64");
  let codec = sharedCodecs.get(id);
  if (codec === undefined) {
    codec = createRequestStateCodec<StatePayload>({ key: sharedKey, ttlSeconds: STATE_TTL_SECONDS });
    sharedCodecs.set(id, codec);
  }
  return codec;
}

export function mintState(state: AskState, sharedKey: Uint8Array | undefined): Promise<string> {
  return codecFor(sharedKey).mint({ m: state.method, t: state.target, r: state.round, n: state.names });
}

/** The same words as the SDK's own refusal, so a client sees one answer whichever check failed. */
export function invalidState(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid or expired requestState", {
    reason: "invalid_request_state",
  });
}

/**
 * The state of a retry of `method` on `target`, or throws -32602 (tampered, expired, or minted
 * for another request). The codec's MAC proves the payload is one this server minted, so its
 * fields have the types `mintState` gave them; only what it was minted for is compared.
 */
export async function verifyState(
  raw: unknown,
  ctx: ServerContext,
  method: string,
  target: string,
  sharedKey: Uint8Array | undefined,
): Promise<AskState> {
  let payload: StatePayload | undefined;
  try {
    payload = typeof raw === "string" ? await codecFor(sharedKey).verify(raw, ctx) : undefined;
  } catch {
    payload = undefined;
  }
  if (payload?.m !== method || payload.t !== target) throw invalidState();
  return { method, target, round: payload.r, names: payload.n };
}
