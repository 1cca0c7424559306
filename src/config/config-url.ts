/**
 * The URL rules of config keys, in one place. There are two on purpose, each named here:
 *
 * - `secureUrlProblem` for what the server trusts with sign-in (`http.publicUrl`, an OAuth issuer,
 *   an introspection endpoint): https, http only on a loopback host, no credentials, no fragment.
 * - `webUrlProblem` for a source the server reads from (a well-known layer's `url`): http or
 *   https, any host; credentials are allowed (a private index) and so never echoed in a message.
 */

/** Loopback host names: the only ones an `http://` issuer or introspection URL may name. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * An absolute https URL (http only on a loopback host) without credentials or fragment, or why
 * not. `what` names it in the message.
 */
export function secureUrlProblem(text: string, what: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${what} must be an absolute URL like https://example.com/…`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `${what} must be an https URL`;
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname))
    return `${what} must be https (http:// only for a loopback host such as 127.0.0.1)`;
  if (url.username !== "" || url.password !== "") return `${what} must not carry credentials`;
  if (url.hash !== "" || text.includes("#")) return `${what} must not have a fragment`;
  return undefined;
}

/** An http or https URL, parsed; or why not: another scheme (refused) or not a URL at all. */
export function parseWebUrl(text: string): URL | "scheme" | "invalid" {
  if (!/^https?:\/\//i.test(text)) return "scheme";
  try {
    return new URL(text);
  } catch {
    return "invalid";
  }
}
