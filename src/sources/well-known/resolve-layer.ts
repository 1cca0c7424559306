/** A url layer for the loader: the folder of its verified copy, from the lockfile or the cache, never the network. */
import type { WellKnownSource } from "../../config/layer-source.ts";
import type { LayerSpec } from "../../config/resolve-config.ts";
import type { Diagnostic } from "../../diagnostics.ts";
import type { Digest } from "../../storage/digest.ts";
import { canonicalUrl, redactUrl } from "../git-url.ts";
import { LOCKFILE_NAME, type Lockfile } from "../lockfile.ts";
import { readSigner } from "../lock-signer.ts";
import { verifyCopy } from "../verify-copy.ts";
import { holdsSkills, WellKnownCache } from "./cache.ts";

/**
 * A layer with `url`, for the loader: the folder of its verified copy, found from the lockfile (a
 * project layer) or the cache's `current.json` (a user layer). Never touches the network: a layer
 * with nothing verified to serve contributes nothing, with a warning naming `skill-central sync`.
 */
export async function resolveWellKnownLayer(
  spec: LayerSpec,
  source: WellKnownSource,
  ctx: {
    home: string;
    lock: Lockfile | undefined;
    lockable: boolean;
    inputs: Set<string>;
    report: (d: Diagnostic) => void;
  },
): Promise<LayerSpec> {
  const url = canonicalUrl(source.url);
  const label = `url layer "${spec.name}" (${redactUrl(source.url)})`;
  const unavailable = (message: string, hint: string, dir = "", severity: Diagnostic["severity"] = "warning") => {
    ctx.report({
      severity,
      code: "well-known-not-synced",
      file: spec.origin,
      message: `${label}: ${message}, so it contributes no skills`,
      hint,
    });
    return { ...spec, dir, unavailable: message };
  };
  const cache = new WellKnownCache(url, ctx.home);
  let target: { url: string; contentHash: Digest; skills: Record<string, unknown>; signer?: unknown } | undefined;
  if (ctx.lockable) {
    target = ctx.lock?.wellKnown.get(spec.name);
    if (!target)
      return unavailable(`it is not in ${LOCKFILE_NAME} yet`, "run `skill-central sync` to fetch and lock it");
    if (target.url !== url)
      return unavailable(`${LOCKFILE_NAME} locks ${target.url}, not what the config says`, "run `skill-central sync`");
  } else {
    ctx.inputs.add(cache.currentFile);
    target = await cache.current();
    if (!target || target.url !== url)
      return unavailable("it has not been fetched on this machine", "run `skill-central sync`");
  }
  if (!holdsSkills(target.skills, source.skills))
    return unavailable("its copy holds other skills than `skills:` names", "run `skill-central sync`");
  const signer = readSigner(target.signer);
  if (source.signers !== undefined && !signer)
    return unavailable(
      "its index was not verified against its signers",
      "run `skill-central sync` to check its signature",
    );
  const dir = cache.copyDir(target.contentHash);
  const copy = await verifyCopy(dir, cache.sealFile(target.contentHash), target.contentHash);
  if (copy.state === "missing") {
    if (!ctx.lockable) return unavailable("there is no local copy of it", "run `skill-central sync`", dir);
    const hint = "run `skill-central sync` (a running `skill-central mcp` fetches it in the background)";
    return { ...unavailable("there is no local copy of it", hint, dir), missingLocked: target.contentHash };
  }
  if (copy.state === "mismatch")
    return unavailable(
      "its local copy does not match its contentHash",
      "run `skill-central sync` to restore it",
      dir,
      "error",
    );
  return { ...spec, dir, provenance: { url: redactUrl(target.url), path: "", ...(signer && { signer }) } };
}
