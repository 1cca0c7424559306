import { redactText, redactUrl } from "../git-url.ts";

/**
 * Downloads for well-known layers: HTTP(S) only, redirects followed (to HTTP(S) only), a timeout
 * per request, a cap on the body read, and a bearer token when the layer names an environment
 * variable. The token is sent in a header and appears in no message: errors name the URL with
 * any credentials in it replaced by `***`.
 */
export class FetchRefused extends Error {
  override readonly name = "FetchRefused";
}

export interface FetchOptions {
  token?: string;
  timeoutMs: number;
  maxBytes: number;
}

export interface Fetched {
  bytes: Uint8Array;
  contentType: string;
  /** After redirects. */
  url: string;
}

export function isWebUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

async function readCapped(response: Response, maxBytes: number, shown: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) throw new FetchRefused(`${shown} is ${declared} bytes, over the limit of ${maxBytes}`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.length;
    if (total > maxBytes) throw new FetchRefused(`${shown} is over the limit of ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** GETs `url`; throws `FetchRefused` with a message fit to print. */
export async function fetchBytes(url: string, options: FetchOptions): Promise<Fetched> {
  const shown = redactUrl(url);
  if (!isWebUrl(url)) throw new FetchRefused(`${shown} is not an http:// or https:// URL (other schemes are refused)`);
  let response: Response;
  try {
    response = await fetch(url, {
      redirect: "follow",
      signal: AbortSignal.timeout(options.timeoutMs),
      headers: {
        Accept: "application/json, text/markdown, application/gzip, application/zip, */*;q=0.1",
        ...(options.token !== undefined && { Authorization: `Bearer ${options.token}` }),
      },
    });
  } catch (error) {
    const name = (error as Error).name;
    const why =
      name === "TimeoutError" || name === "AbortError"
        ? `no answer within ${options.timeoutMs / 1000} s`
        : redactText((error as Error).message ?? String(error), url);
    throw new FetchRefused(`cannot fetch ${shown}: ${options.token ? why.split(options.token).join("***") : why}`);
  }
  if (!isWebUrl(response.url || url))
    throw new FetchRefused(`${shown} redirected to a URL that is not http:// or https://`);
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    const hint =
      response.status === 401 || response.status === 403
        ? options.token === undefined
          ? " (the host wants credentials: name an environment variable holding a token with tokenEnv)"
          : " (the token was not accepted)"
        : "";
    throw new FetchRefused(`${shown} answered HTTP ${response.status}${hint}`);
  }
  return {
    bytes: await readCapped(response, options.maxBytes, shown),
    contentType: (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase(),
    url: response.url || url,
  };
}
