/**
 * Downloads for well-known layers: HTTP(S) only, redirects followed (to HTTP(S) only, at most
 * `MAX_REDIRECTS`), a timeout per request, a cap on the body read, and a bearer token when the
 * layer names an environment variable. The token goes to the origin of the layer's own `url`
 * only: not to another host an index entry's absolute `url` names, nor to one a redirect leads
 * to (redirects are followed here, hop by hop, so each hop's origin is checked). The token is
 * sent in a header and appears in no message: errors name the URL with any credentials in it
 * replaced by `***`.
 */
import { isLoopbackHost } from "../../config/config-url.ts";
import { redactText, redactUrl } from "../git-url.ts";

export class FetchRefused extends Error {
  override readonly name = "FetchRefused";
}

/** A bearer token, and the one origin (`https://host:port`) it may be sent to. */
export interface BearerToken {
  token: string;
  origin: string;
}

export interface FetchOptions {
  auth?: BearerToken;
  timeoutMs: number;
  maxBytes: number;
}

export interface Fetched {
  bytes: Uint8Array;
  contentType: string;
  /** After redirects. */
  url: string;
}

const MAX_REDIRECTS = 10;

export function isWebUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/**
 * Why a token may not be sent to the layer URL `url`, or undefined: over plain `http://` anyone on
 * the way reads it, so only a server on this machine (loopback) gets one that way.
 */
export function tokenUrlProblem(url: string, tokenEnv: string): string | undefined {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" || isLoopbackHost(parsed.hostname)) return undefined;
  return (
    `the token in ${tokenEnv} (tokenEnv) is not sent over plain http:// to ${parsed.host}: anyone on the way ` +
    "could read it and use it; use an https:// url (plain http:// with a token is only for this machine: localhost, 127.0.0.1, ::1)"
  );
}

async function readCapped(response: Response, maxBytes: number, shown: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new FetchRefused(`${shown} is ${declared} bytes, over the limit of ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.length;
    if (total > maxBytes) throw new FetchRefused(`${shown} is over the limit of ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  const joined = Buffer.concat(chunks);
  return new Uint8Array(joined.buffer, joined.byteOffset, joined.length);
}

/** One request, no redirect followed; the token only when `url` is of its origin. */
async function request(url: string, options: FetchOptions, signal: AbortSignal): Promise<Response> {
  const { auth } = options;
  const authorised = auth !== undefined && new URL(url).origin === auth.origin;
  try {
    return await fetch(url, {
      redirect: "manual",
      signal,
      headers: {
        Accept: "application/json, text/markdown, application/gzip, application/zip, */*;q=0.1",
        ...(authorised && { Authorization: `Bearer ${auth.token}` }),
      },
    });
  } catch (error) {
    const name = (error as Error).name;
    const why =
      name === "TimeoutError" || name === "AbortError"
        ? `no answer within ${options.timeoutMs / 1000} s`
        : redactText((error as Error).message ?? String(error), url);
    throw new FetchRefused(`cannot fetch ${redactUrl(url)}: ${auth ? why.split(auth.token).join("***") : why}`);
  }
}

/** GETs `url`, following redirects; throws `FetchRefused` with a message fit to print. */
export async function fetchBytes(url: string, options: FetchOptions): Promise<Fetched> {
  const shown = redactUrl(url);
  if (!isWebUrl(url)) throw new FetchRefused(`${shown} is not an http:// or https:// URL (other schemes are refused)`);
  const signal = AbortSignal.timeout(options.timeoutMs);
  let at = url;
  let response = await request(at, options, signal);
  for (let hops = 0; response.status >= 300 && response.status < 400 && response.headers.has("location"); hops++) {
    await response.body?.cancel().catch(() => {});
    if (hops === MAX_REDIRECTS) throw new FetchRefused(`${shown} redirected more than ${MAX_REDIRECTS} times`);
    at = new URL(response.headers.get("location")!, at).href;
    if (!isWebUrl(at)) throw new FetchRefused(`${shown} redirected to a URL that is not http:// or https://`);
    response = await request(at, options, signal);
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    const sentToken = options.auth !== undefined && new URL(at).origin === options.auth.origin;
    const hint =
      response.status === 401 || response.status === 403
        ? options.auth === undefined
          ? " (the host wants credentials: name an environment variable holding a token with tokenEnv)"
          : sentToken
            ? " (the token was not accepted)"
            : ` (the token is sent only to ${options.auth.origin}, the origin of the layer's url)`
        : "";
    throw new FetchRefused(`${redactUrl(at)} answered HTTP ${response.status}${hint}`);
  }
  return {
    bytes: await readCapped(response, options.maxBytes, shown),
    contentType: (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase(),
    url: at,
  };
}
