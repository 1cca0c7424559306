/**
 * The one HTTP exchange with a model API: a POST with a timeout per request (an AbortSignal, so a
 * silent server cannot hold a run), a bounded number of retries on 429 and 5xx only (anything
 * else is the caller's mistake and will not improve), and errors that name what went wrong
 * without the key: a key given to this module is scrubbed from every message it throws, since a
 * server may echo a rejected key in its error body.
 */
import type { ModelRequest, ModelTurn } from "./conversation.ts";

export type Provider = "openai" | "anthropic";

/** One provider's wire shape: where to post, how to authenticate, the body, and reading the answer. */
export interface Wire {
  provider: Provider;
  defaultBaseUrl: string;
  /** The environment variable the key is read from by default. */
  keyVariable: string;
  url(base: string): string;
  headers(key: string | undefined): Record<string, string>;
  body(request: ModelRequest): Record<string, unknown>;
  /** Throws MalformedAnswer naming the part that is not what the API promises. */
  parse(body: unknown): ModelTurn;
}

/** A failed exchange: the message is safe to print and to store (no key, no full body). */
export class ModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelError";
  }
}

export interface PostOptions {
  key: string | undefined;
  timeoutMs: number;
  /** Attempts after the first, on 429 and 5xx only. */
  retries: number;
  /** The wait before retry n (0-based) when the server gives no Retry-After. */
  backoffMs: (attempt: number) => number;
  fetch: typeof fetch;
}

/** The longest Retry-After honoured: a server asking for more is treated as down. */
const MAX_RETRY_AFTER_MS = 30_000;
const ERROR_EXCERPT = 200;

export function scrub(text: string, key: string | undefined): string {
  return key === undefined || key.length < 4 ? text : text.split(key).join("[key]");
}

/** What a failed answer says, briefly: an API's `error.message`, else the start of the body. */
function excerpt(text: string): string {
  let said = text;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof message === "string") said = message;
  } catch {
    // Not JSON: the text as it is.
  }
  said = said.replace(/\s+/g, " ").trim();
  return said.length > ERROR_EXCERPT ? `${said.slice(0, ERROR_EXCERPT)}…` : said;
}

function retryAfterMs(response: Response): number | undefined {
  const header = response.headers.get("retry-after");
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The origin, for messages: where the request went, never a path or query that could carry a secret. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "the model API";
  }
}

/** POSTs `body` as JSON and returns the answer's JSON; throws ModelError. */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  options: PostOptions,
): Promise<unknown> {
  const where = originOf(url);
  const seconds = options.timeoutMs / 1000;
  for (let attempt = 0; ; attempt++) {
    const signal = AbortSignal.timeout(options.timeoutMs);
    let text: string;
    let response: Response;
    try {
      response = await options.fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
        signal,
      });
      text = await response.text();
    } catch (error) {
      if (signal.aborted) throw new ModelError(`no answer from ${where} within ${seconds}s (--timeout)`);
      throw new ModelError(scrub(`cannot reach ${where}: ${(error as Error).message}`, options.key));
    }
    if (response.ok) {
      try {
        return JSON.parse(text);
      } catch {
        throw new ModelError(`malformed answer: ${where} answered ${response.status} with a body that is not JSON`);
      }
    }
    const retryable = response.status === 429 || response.status >= 500;
    const wait = retryAfterMs(response) ?? options.backoffMs(attempt);
    if (retryable && attempt < options.retries && wait <= MAX_RETRY_AFTER_MS) {
      await pause(wait);
      continue;
    }
    const tries = attempt > 0 ? ` (after ${attempt + 1} attempts)` : "";
    throw new ModelError(scrub(`${where} answered ${response.status}${tries}: ${excerpt(text)}`, options.key));
  }
}
