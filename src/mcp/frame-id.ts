/**
 * The top-level `id` of a JSON-RPC frame, found while the frame streams past without keeping it:
 * an oversized frame is discarded as it arrives, yet its sender must get an error it can match,
 * and the SDK's own clients put `id` after `params`, at the very end of the frame.
 */
export type FrameId =
  /** A request id to answer with. */
  | { kind: "id"; id: string | number }
  /** The frame has an `id` that is not a string or an integer (null, an object, …), or it is a batch: answer with id null. */
  | { kind: "invalid" }
  /** No top-level `id`: a notification, or not a JSON object at all. Nobody to answer. */
  | { kind: "none" };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** A key longer than this (escapes included) cannot spell `id`. */
const MAX_KEY_BYTES = 16;
/** An id value longer than this is not worth echoing: it is answered as invalid (id null). */
export const MAX_ID_BYTES = 1024;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * Feed the frame's bytes in any number of chunks, then read `result()`. Memory stays bounded
 * (a short key and at most `MAX_ID_BYTES` of value) whatever the frame's size; each byte is
 * looked at once.
 */
export class FrameIdScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The first non-space byte: `{` for an object, `[` for a batch. */
  private opener = 0;
  /** At depth 1 of the top-level object: the next string is a key. */
  private expectKey = false;
  /** Bytes of the depth-1 key being read, or undefined when not reading one. */
  private key: number[] | undefined;
  private keyTooLong = false;
  /** The last key read was `id`; its value comes after the colon. */
  private idNext = false;
  /** Bytes of the id value being captured, or undefined when not capturing. */
  private value: number[] | undefined;
  private valueIsString = false;
  private valueTooLong = false;
  private found: FrameId = { kind: "none" };

  feed(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i++) this.step(chunk[i]!);
  }

  result(): FrameId {
    if (this.value !== undefined) this.finishValue();
    if (this.opener === OPEN_BRACKET) return { kind: "invalid" };
    return this.found;
  }

  private step(byte: number): void {
    if (this.value !== undefined && this.captureValue(byte)) return;
    if (this.inString) {
      this.stringByte(byte);
      return;
    }
    if (isSpace(byte)) return;
    if (this.opener === 0) this.opener = byte;
    if (this.idNext && this.depth === 1 && byte !== COLON) {
      this.idNext = false;
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.found = { kind: "invalid" };
      else {
        this.value = [byte];
        this.valueIsString = byte === QUOTE;
        this.valueTooLong = false;
        this.escaped = false;
        return;
      }
    }
    switch (byte) {
      case QUOTE:
        this.inString = true;
        if (this.depth === 1 && this.expectKey && this.opener === OPEN_BRACE) {
          this.key = [];
          this.keyTooLong = false;
        }
        return;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        this.depth++;
        this.expectKey = this.depth === 1 && byte === OPEN_BRACE;
        return;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        this.depth--;
        return;
      case COMMA:
        if (this.depth === 1) this.expectKey = true;
        return;
      case COLON:
        if (this.depth === 1) this.expectKey = false;
        return;
    }
  }

  private stringByte(byte: number): void {
    if (this.escaped) this.escaped = false;
    else if (byte === BACKSLASH) this.escaped = true;
    else if (byte === QUOTE) {
      this.inString = false;
      if (this.key !== undefined) this.finishKey();
      return;
    }
    if (this.key !== undefined) {
      if (this.key.length < MAX_KEY_BYTES) this.key.push(byte);
      else this.keyTooLong = true;
    }
  }

  private finishKey(): void {
    const bytes = this.key!;
    this.key = undefined;
    this.expectKey = false;
    if (this.keyTooLong) return;
    try {
      this.idNext = JSON.parse(`"${Buffer.from(bytes).toString("utf8")}"`) === "id";
    } catch {
      this.idNext = false;
    }
  }

  /** One byte while an id value is captured; false when the byte ends a bare value and still needs scanning. */
  private captureValue(byte: number): boolean {
    if (this.valueIsString) {
      this.keep(byte);
      if (this.escaped) this.escaped = false;
      else if (byte === BACKSLASH) this.escaped = true;
      else if (byte === QUOTE) this.finishValue();
      return true;
    }
    if (isSpace(byte) || byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      this.finishValue();
      return false;
    }
    this.keep(byte);
    return true;
  }

  private keep(byte: number): void {
    if (this.value!.length < MAX_ID_BYTES) this.value!.push(byte);
    else this.valueTooLong = true;
  }

  private finishValue(): void {
    const bytes = this.value!;
    this.value = undefined;
    let id: unknown;
    try {
      id = this.valueTooLong ? undefined : JSON.parse(Buffer.from(bytes).toString("utf8"));
    } catch {
      id = undefined;
    }
    // Like JSON.parse, the last of duplicate keys wins.
    this.found =
      typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))
        ? { kind: "id", id }
        : { kind: "invalid" };
  }
}

/** The top-level id of a whole frame held in memory (tests, and frames that fit). */
export function frameId(frame: string | Uint8Array): FrameId {
  const scanner = new FrameIdScanner();
  scanner.feed(typeof frame === "string" ? Buffer.from(frame) : frame);
  return scanner.result();
}
