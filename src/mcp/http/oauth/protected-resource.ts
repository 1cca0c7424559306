/**
 * RFC 9728 Protected Resource Metadata: how a client learns, from our 401 alone, which
 * authorization server to sign in with and what to ask for. Built once per server.
 */
import { getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/server";
import type { OAuthOptions } from "./token-checker.ts";

export const PRM_PATH = "/.well-known/oauth-protected-resource";

/** What the document and the challenges say: this server's URL, its issuer and the scopes it requires. */
type ProtectedResource = Pick<OAuthOptions, "resource" | "issuer" | "scopes">;

/**
 * The paths the document is served at: the root form, and the path-suffixed form for a resource
 * with a path (`https://host/mcp` → `/.well-known/oauth-protected-resource/mcp`), which clients try first.
 */
export function metadataPaths(publicUrl: string): string[] {
  const suffixed = new URL(metadataUrl(publicUrl)).pathname;
  return suffixed === PRM_PATH ? [PRM_PATH] : [suffixed, PRM_PATH];
}

/** The URL a challenge points to: the SDK's RFC 9728 rule (the document path inserted before the public URL's path). */
export function metadataUrl(publicUrl: string): string {
  const url = new URL(getOAuthProtectedResourceMetadataUrl(new URL(publicUrl)));
  url.search = "";
  return url.href;
}

export function metadataDocument(resource: ProtectedResource): Record<string, unknown> {
  return {
    resource: resource.resource,
    authorization_servers: [resource.issuer],
    scopes_supported: [...resource.scopes],
    bearer_methods_supported: ["header"],
  };
}

/**
 * The `WWW-Authenticate` value of a refusal (RFC 6750 §3, RFC 9728 §5.1). `error` is absent when
 * no token came; the scope is named whenever scopes are required, so a client asks for them.
 */
export function challenge(
  resource: ProtectedResource,
  error?: "invalid_token" | "invalid_request" | "insufficient_scope",
): string {
  const params: string[] = [];
  if (error !== undefined) params.push(`error="${error}"`);
  if (resource.scopes.length > 0) params.push(`scope="${resource.scopes.join(" ")}"`);
  params.push(`resource_metadata="${metadataUrl(resource.resource)}"`);
  return `Bearer ${params.join(", ")}`;
}
