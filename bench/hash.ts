#!/usr/bin/env bun
/**
 * Which SHA-256 API storage/digest.ts uses, by measurement: node:crypto's `createHash`, Bun's
 * `CryptoHasher`, and Bun's one-shot `SHA256.hash`, each to lowercase hex, on a cache name's input
 * (a 40-byte path), 100 B, 10 KB, 1 MB (one update, and 64 KiB updates as hashFileVersion reads),
 * and the loader's many small files (1,000 of 2 KB, a fresh hash each). Then each API's first hash
 * in a fresh process (module load included), as start-up pays it. `bun bench/hash.ts`; not part
 * of `bun run bench`.
 */
import { createHash } from "node:crypto";

type Input = string | Uint8Array;
type Api = { name: string; hex: (parts: readonly Input[]) => string };

const APIS: Api[] = [
  {
    name: "node:crypto createHash",
    hex: (parts) => {
      const h = createHash("sha256");
      for (const p of parts) h.update(p);
      return h.digest("hex");
    },
  },
  {
    name: "Bun.CryptoHasher",
    hex: (parts) => {
      const h = new Bun.CryptoHasher("sha256");
      for (const p of parts) h.update(p);
      return h.digest("hex");
    },
  },
  {
    name: "Bun.SHA256.hash",
    hex: (parts) => {
      if (parts.length === 1) return Bun.SHA256.hash(parts[0]!, "hex");
      const h = new Bun.SHA256();
      for (const p of parts) h.update(p);
      return h.digest("hex");
    },
  },
];

const bytes = (n: number): Uint8Array => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + 7) & 0xff;
  return b;
};
const chunks = (b: Uint8Array, size: number): Uint8Array[] => {
  const out: Uint8Array[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};

const MB = bytes(1 << 20);
const bytes100 = bytes(100);
const bytes10k = bytes(10_000);
const MB_CHUNKS = chunks(MB, 64 * 1024);
const SMALL_FILES = Array.from({ length: 1000 }, (_, i) => bytes(2048 + (i % 7)));
const CASES: { name: string; runs: (api: Api) => void }[] = [
  { name: "40 B path (cache name)", runs: (a) => a.hex(["/home/someone/projects/skill-central-app"]) },
  { name: "100 B", runs: (a) => a.hex([bytes100]) },
  { name: "10 KB", runs: (a) => a.hex([bytes10k]) },
  { name: "1 MB", runs: (a) => a.hex([MB]) },
  { name: "1 MB in 64 KiB updates", runs: (a) => a.hex(MB_CHUNKS) },
  {
    name: "1,000 files of 2 KB",
    runs: (a) => {
      for (const f of SMALL_FILES) a.hex([f]);
    },
  },
];

// The three agree before anything is timed.
for (const input of [[""], ["abc"], [MB], MB_CHUNKS] as Input[][]) {
  const outs = new Set(APIS.map((a) => a.hex(input)));
  if (outs.size !== 1) throw new Error("the APIs disagree");
}

/** Median time of one call, over `rounds` rounds each long enough (~40 ms) to time. */
function time(fn: () => void, rounds = 9): number {
  let n = 1;
  for (;;) {
    const t = performance.now();
    for (let i = 0; i < n; i++) fn();
    if (performance.now() - t > 40) break;
    n *= 2;
  }
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) fn();
    samples.push((performance.now() - t) / n);
  }
  return samples.sort((a, b) => a - b)[rounds >> 1]!;
}

const fmt = (ms: number): string =>
  ms < 0.001 ? `${(ms * 1e6).toFixed(0)} ns` : ms < 1 ? `${(ms * 1e3).toFixed(2)} µs` : `${ms.toFixed(2)} ms`;

console.log(`bun ${Bun.version}, ${process.platform}/${process.arch}; median of 9 rounds`);
console.log(["case", ...APIS.map((a) => a.name)].join(" | "));
for (const c of CASES) {
  // Interleaved, so a busy moment on the machine falls on every API alike.
  const results = APIS.map(() => [] as number[]);
  for (let rep = 0; rep < 3; rep++) for (const [i, a] of APIS.entries()) results[i]!.push(time(() => c.runs(a)));
  console.log([c.name, ...results.map((r) => fmt(r.sort((x, y) => x - y)[1]!))].join(" | "));
}

// A fresh process's first hash: module load and first use, as start-up pays them.
const FIRST: Record<string, string> = {
  none: "",
  "node:crypto createHash":
    'const { createHash } = await import("node:crypto"); createHash("sha256").update("x").digest("hex");',
  "Bun.CryptoHasher": 'new Bun.CryptoHasher("sha256").update("x").digest("hex");',
  "Bun.SHA256.hash": 'Bun.SHA256.hash("x", "hex");',
};
const first: Record<string, number[]> = Object.fromEntries(Object.keys(FIRST).map((name) => [name, []]));
for (let rep = 0; rep < 15; rep++)
  for (const [name, code] of Object.entries(FIRST)) {
    const script = `const t = performance.now(); ${code} console.log(performance.now() - t);`;
    const out = Bun.spawnSync([process.execPath, "-e", script]).stdout.toString().trim();
    first[name]!.push(Number(out));
  }
console.log("first hash in a fresh process (median of 15):");
for (const [name, samples] of Object.entries(first))
  console.log(`  ${name}: ${fmt(samples.sort((a, b) => a - b)[samples.length >> 1]!)}`);
