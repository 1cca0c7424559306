/**
 * OpenSSH's file signatures (PROTOCOL.sshsig, what `ssh-keygen -Y sign` writes and git's
 * `gpg.format=ssh` puts in a commit) read, checked and made in process with node:crypto, so the
 * compiled binary verifies on a machine without OpenSSH. Written by hand rather than with `sshpk`:
 * the formats are a few length-prefixed fields, `sshpk` knows nothing of SSHSIG (the signed
 * preamble, the armour) and would add ~200 KB of CommonJS to the binary for the key parsing alone.
 *
 * Public keys: ssh-ed25519, ssh-rsa (signatures rsa-sha2-256 / rsa-sha2-512; SHA-1 `ssh-rsa`
 * signatures are refused, as OpenSSH does), ecdsa-sha2-nistp256/384/521. Private keys (for
 * signing): the unencrypted OpenSSH format of the same types.
 */

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign,
  verify,
  type JsonWebKeyInput,
  type KeyObject,
} from "node:crypto";

const MAGIC = "SSHSIG";
const BEGIN = "-----BEGIN SSH SIGNATURE-----";
const END = "-----END SSH SIGNATURE-----";
const PRIVATE_BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----";
const PRIVATE_END = "-----END OPENSSH PRIVATE KEY-----";
const PRIVATE_MAGIC = "openssh-key-v1\0";

/** A signature, a key or a key file that cannot be used; the message says why, fit to print. */
export class SshSigError extends Error {
  override readonly name = "SshSigError";
}

const CURVES: Record<string, { crv: string; hash: string; size: number }> = {
  "ecdsa-sha2-nistp256": { crv: "P-256", hash: "sha256", size: 32 },
  "ecdsa-sha2-nistp384": { crv: "P-384", hash: "sha384", size: 48 },
  "ecdsa-sha2-nistp521": { crv: "P-521", hash: "sha512", size: 66 },
};

/** SSH wire format reading: uint32, length-prefixed strings; a short buffer is a SshSigError. */
class Reader {
  private at = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {}

  uint32(): number {
    if (this.at + 4 > this.bytes.length) throw new SshSigError(`${this.what} is truncated`);
    const value = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at, 4).getUint32(0);
    this.at += 4;
    return value;
  }

  bytesOf(n: number): Uint8Array {
    if (this.at + n > this.bytes.length) throw new SshSigError(`${this.what} is truncated`);
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  string(): Uint8Array {
    return this.bytesOf(this.uint32());
  }

  text(): string {
    return new TextDecoder().decode(this.string());
  }

  /** An mpint as unsigned big-endian bytes (the sign byte dropped). */
  mpint(): Uint8Array {
    const raw = this.string();
    let start = 0;
    while (start < raw.length - 1 && raw[start] === 0) start++;
    return raw.subarray(start);
  }

  get done(): boolean {
    return this.at === this.bytes.length;
  }
}

function u32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

/** SSH `string`s (uint32 length + bytes) concatenated. */
function wire(...parts: (Uint8Array | string)[]): Uint8Array {
  const chunks = parts.map((p) => (typeof p === "string" ? new TextEncoder().encode(p) : p));
  return new Uint8Array(Buffer.concat(chunks.flatMap((c) => [u32(c.length), c])));
}

/** An unsigned big-endian integer as an mpint's bytes (a 0 byte in front when the top bit is set). */
function mpint(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return trimmed[0]! & 0x80 ? new Uint8Array(Buffer.concat([new Uint8Array([0]), trimmed])) : trimmed;
}

/** A JSON Web Key, as node:crypto imports one. */
type Jwk = JsonWebKeyInput["key"];

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/** A public key as OpenSSH names and encodes it. */
export interface SshPublicKey {
  /** `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`, … */
  type: string;
  /** The wire-format key blob (what `authorized_keys` and `allowed_signers` carry in base64). */
  blob: Uint8Array;
  key: KeyObject;
}

/** `SHA256:<base64 without padding>`, as `ssh-keygen -l` prints it. */
export function fingerprint(blob: Uint8Array): string {
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

/** A key from its wire-format blob; throws SshSigError for a type this module does not verify. */
export function parsePublicKey(blob: Uint8Array): SshPublicKey {
  const r = new Reader(blob, "the public key");
  const type = r.text();
  let jwk: Jwk;
  if (type === "ssh-ed25519") {
    jwk = { kty: "OKP", crv: "Ed25519", x: b64url(r.string()) };
  } else if (type === "ssh-rsa") {
    const e = r.mpint();
    jwk = { kty: "RSA", e: b64url(e), n: b64url(r.mpint()) };
  } else if (CURVES[type]) {
    const curve = CURVES[type]!;
    r.string(); // the curve's name, implied by the type
    const point = r.string();
    if (point[0] !== 4 || point.length !== 1 + 2 * curve.size)
      throw new SshSigError(`the ${type} key is not an uncompressed point`);
    jwk = {
      kty: "EC",
      crv: curve.crv,
      x: b64url(point.subarray(1, 1 + curve.size)),
      y: b64url(point.subarray(1 + curve.size)),
    };
  } else if (type.startsWith("sk-")) {
    throw new SshSigError(`security-key (${type}) signatures are not supported; use an ed25519, RSA or ECDSA key`);
  } else if (type.includes("-cert-v01@openssh.com")) {
    throw new SshSigError(`certificates (${type}) are not supported; list the signer's own key`);
  } else {
    throw new SshSigError(`keys of type ${type} are not supported (ed25519, RSA and ECDSA are)`);
  }
  try {
    return { type, blob, key: createPublicKey({ key: jwk, format: "jwk" }) };
  } catch (error) {
    throw new SshSigError(`the ${type} key is not valid: ${(error as Error).message}`);
  }
}

/** A parsed SSHSIG blob. */
export interface SshSignature {
  publicKey: SshPublicKey;
  namespace: string;
  hashAlgorithm: "sha256" | "sha512";
  /** The signature's own algorithm (`rsa-sha2-512`, `ssh-ed25519`, …) and raw bytes. */
  algorithm: string;
  signature: Uint8Array;
}

/** The armoured text (`-----BEGIN SSH SIGNATURE-----` …) parsed; throws SshSigError. */
export function parseSignature(armoured: string): SshSignature {
  const text = armoured.replace(/\r/g, "").trim();
  if (text.startsWith("-----BEGIN PGP SIGNATURE-----"))
    throw new SshSigError("it is an OpenPGP signature, not an SSH one");
  if (!text.startsWith(BEGIN) || !text.endsWith(END)) throw new SshSigError("it is not an SSH signature");
  const body = text.slice(BEGIN.length, text.length - END.length).replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new SshSigError("the SSH signature is not valid base64");
  const r = new Reader(new Uint8Array(Buffer.from(body, "base64")), "the SSH signature");
  if (new TextDecoder().decode(r.bytesOf(6)) !== MAGIC) throw new SshSigError("the SSH signature has no SSHSIG header");
  const version = r.uint32();
  if (version !== 1) throw new SshSigError(`SSHSIG version ${version} is not supported (1 is)`);
  const publicKey = parsePublicKey(r.string());
  const namespace = r.text();
  r.string(); // reserved
  const hashAlgorithm = r.text();
  if (hashAlgorithm !== "sha256" && hashAlgorithm !== "sha512")
    throw new SshSigError(`the signature's hash ${JSON.stringify(hashAlgorithm)} is not sha256 or sha512`);
  const inner = new Reader(r.string(), "the signature");
  const algorithm = inner.text();
  const signature = inner.string();
  if (!r.done) throw new SshSigError("the SSH signature has trailing bytes");
  return { publicKey, namespace, hashAlgorithm, algorithm, signature };
}

/** What the key signs: the SSHSIG preamble, the namespace and the message's hash. */
function signedData(namespace: string, hashAlgorithm: string, message: Uint8Array): Uint8Array {
  const digest = new Uint8Array(createHash(hashAlgorithm).update(message).digest());
  const head = new TextEncoder().encode(MAGIC);
  return new Uint8Array(Buffer.concat([head, wire(namespace, new Uint8Array(), hashAlgorithm, digest)]));
}

/** The digest the signature's algorithm uses, or why the pair is refused. */
function digestFor(keyType: string, algorithm: string): string | null {
  if (keyType === "ssh-ed25519" && algorithm === "ssh-ed25519") return null;
  if (keyType === "ssh-rsa") {
    if (algorithm === "rsa-sha2-512") return "sha512";
    if (algorithm === "rsa-sha2-256") return "sha256";
    throw new SshSigError(`RSA signatures made with ${algorithm} (SHA-1) are refused; sign with rsa-sha2-512`);
  }
  if (CURVES[keyType] && algorithm === keyType) return CURVES[keyType]!.hash;
  throw new SshSigError(`a ${algorithm} signature cannot come from a ${keyType} key`);
}

/**
 * Whether `sig` is a good signature of `message` by its own key in `namespace`. A wrong namespace
 * or a malformed signature throws SshSigError (saying which); a signature that does not match the
 * message is `false`. Which key is trusted is the caller's question (allowed-signers.ts).
 */
export function verifySignature(sig: SshSignature, message: Uint8Array, namespace: string): boolean {
  if (sig.namespace !== namespace)
    throw new SshSigError(`it was made for namespace "${sig.namespace}", not "${namespace}"`);
  const digest = digestFor(sig.publicKey.type, sig.algorithm);
  const data = signedData(namespace, sig.hashAlgorithm, message);
  const curve = CURVES[sig.publicKey.type];
  if (curve) {
    const inner = new Reader(sig.signature, "the ECDSA signature");
    const pad = (n: Uint8Array) => {
      if (n.length > curve.size) throw new SshSigError("the ECDSA signature is malformed");
      return Buffer.concat([Buffer.alloc(curve.size - n.length), n]);
    };
    const raw = Buffer.concat([pad(inner.mpint()), pad(inner.mpint())]);
    return verify(digest, data, { key: sig.publicKey.key, dsaEncoding: "ieee-p1363" }, raw);
  }
  return verify(digest, data, sig.publicKey.key, sig.signature);
}

/** An OpenSSH private key, ready to sign. */
export interface SshPrivateKey {
  publicKey: SshPublicKey;
  key: KeyObject;
}

/** The keys of the private section, by type: each returns its JWK and skips the comment. */
function privateJwk(type: string, r: Reader): { blob: Uint8Array; jwk: Jwk } {
  if (type === "ssh-ed25519") {
    const pub = r.string();
    const seedAndPub = r.string();
    return {
      blob: wire(type, pub),
      jwk: { kty: "OKP", crv: "Ed25519", x: b64url(pub), d: b64url(seedAndPub.subarray(0, 32)) },
    };
  }
  if (type === "ssh-rsa") {
    const [n, e, d, iqmp, p, q] = [r.mpint(), r.mpint(), r.mpint(), r.mpint(), r.mpint(), r.mpint()];
    const big = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).toString("hex") || "0"}`);
    const bytes = (v: bigint) => {
      const hex = v.toString(16);
      return new Uint8Array(Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex"));
    };
    const dp = bytes(big(d) % (big(p) - 1n));
    const dq = bytes(big(d) % (big(q) - 1n));
    const jwk = { kty: "RSA", n, e, d, p, q, dp, dq, qi: iqmp };
    return {
      blob: wire(type, mpint(e), mpint(n)),
      jwk: Object.fromEntries(Object.entries(jwk).map(([k, v]) => [k, typeof v === "string" ? v : b64url(v)])),
    };
  }
  const curve = CURVES[type];
  if (!curve) throw new SshSigError(`private keys of type ${type} are not supported (ed25519, RSA and ECDSA are)`);
  const name = r.text();
  const point = r.string();
  const d = r.mpint();
  const pad = (b: Uint8Array) => Buffer.concat([Buffer.alloc(Math.max(0, curve.size - b.length)), b]);
  return {
    blob: wire(type, name, point),
    jwk: {
      kty: "EC",
      crv: curve.crv,
      x: b64url(point.subarray(1, 1 + curve.size)),
      y: b64url(point.subarray(1 + curve.size)),
      d: b64url(pad(d)),
    },
  };
}

/** An unencrypted OpenSSH private key file's text parsed; an encrypted one is refused (no prompt here). */
export function parsePrivateKey(text: string): SshPrivateKey {
  const trimmed = text.replace(/\r/g, "").trim();
  if (!trimmed.startsWith(PRIVATE_BEGIN) || !trimmed.endsWith(PRIVATE_END))
    throw new SshSigError(
      trimmed.includes("PUBLIC KEY") || /^(ssh-|ecdsa-)/.test(trimmed)
        ? "it is a public key; give the private key file (without .pub)"
        : "it is not an OpenSSH private key (ssh-keygen writes them; PEM and PuTTY keys are not read)",
    );
  const body = trimmed.slice(PRIVATE_BEGIN.length, trimmed.length - PRIVATE_END.length).replace(/\s+/g, "");
  const r = new Reader(new Uint8Array(Buffer.from(body, "base64")), "the private key");
  if (new TextDecoder().decode(r.bytesOf(PRIVATE_MAGIC.length)) !== PRIVATE_MAGIC)
    throw new SshSigError("it is not an OpenSSH private key");
  const cipher = r.text();
  if (cipher !== "none")
    throw new SshSigError(
      "the key is encrypted with a passphrase, which skill-central cannot ask for; sign with `ssh-keygen -Y sign` instead, or use a key without one",
    );
  r.text(); // kdf name
  r.string(); // kdf options
  if (r.uint32() !== 1) throw new SshSigError("the key file holds more than one key");
  r.string(); // the public key, repeated in the private section
  const section = new Reader(r.string(), "the private key");
  const check = section.uint32();
  if (check !== section.uint32()) throw new SshSigError("the private key's check bytes differ (damaged?)");
  const type = section.text();
  const { blob, jwk } = privateJwk(type, section);
  try {
    const key = createPrivateKey({ key: jwk, format: "jwk" });
    return { publicKey: parsePublicKey(blob), key };
  } catch (error) {
    if (error instanceof SshSigError) throw error;
    throw new SshSigError(`the ${type} private key is not valid: ${(error as Error).message}`);
  }
}

/** The armoured SSHSIG signature of `message` in `namespace` (sha512, as ssh-keygen makes them). */
export function signMessage(privateKey: SshPrivateKey, message: Uint8Array, namespace: string): string {
  const { type, blob } = privateKey.publicKey;
  const data = signedData(namespace, "sha512", message);
  const curve = CURVES[type];
  let algorithm = type;
  let raw: Uint8Array;
  if (type === "ssh-ed25519") raw = sign(null, data, privateKey.key);
  else if (type === "ssh-rsa") {
    algorithm = "rsa-sha2-512";
    raw = sign("sha512", data, privateKey.key);
  } else {
    const p1363 = sign(curve!.hash, data, { key: privateKey.key, dsaEncoding: "ieee-p1363" });
    raw = wire(mpint(p1363.subarray(0, curve!.size)), mpint(p1363.subarray(curve!.size)));
  }
  const head = new Uint8Array(Buffer.concat([new TextEncoder().encode(MAGIC), u32(1)]));
  const blobOut = Buffer.concat([
    head,
    wire(blob, namespace, new Uint8Array(), "sha512", wire(algorithm, new Uint8Array(raw))),
  ]);
  const lines = blobOut.toString("base64").match(/.{1,70}/g) ?? [];
  return `${BEGIN}\n${lines.join("\n")}\n${END}\n`;
}
