/** Command-line flags of `bun bench/run.ts`. */

export const TARGET_NAMES = ["source", "binary", "floor"] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

/** cold: each session gets a new empty HOME (no start-up index); warm: a HOME whose index an earlier session wrote. */
export const MODES = ["cold", "warm"] as const;
export type Mode = (typeof MODES)[number];

export interface BenchOptions {
  sizes: number[];
  /** Measured sessions per (size, target); one extra warm-up session is never recorded. */
  runs: number;
  seed: number;
  targets: TargetName[];
  modes: Mode[];
  /** Requests of each kind per session: the first is "first", the rest are "warm". */
  reps: number;
  /** Sequential tools/call right after the first list: exactly this many, timed as one block. */
  firstCalls: number;
  /** Steady-state sequential tools/call throughput: at most this many calls… */
  calls: number;
  /** …or this long, whichever ends first. */
  callSeconds: number;
  debugTiming: boolean;
  quick: boolean;
  /** Benchmark this binary instead of building one. */
  binary?: string;
  /** Where our servers record uses: their own SQLite file (the default), or one throwaway PostgreSQL cluster. */
  store: "file" | "postgres";
}

const USAGE = `usage: bun bench/run.ts [options]
       bun bench/run.ts --folders [--sizes 120,1200,12000] [--runs N] [--baseline DIR] [--skills-from DIR]
                                  (Agent Skills folders against skilljack-mcp: bench/folders.ts)

  --sizes 100,1000,10000   corpus sizes (skill files), default all three
  --runs N                 measured sessions per size, target and mode (default 15; --quick: 3)
  --seed N                 corpus seed (default 42)
  --targets a,b,c          any of source,binary,floor (default all)
  --modes a,b              cold (fresh HOME), warm (start-up index reused), or both (default)
  --first-calls N          tools/call right after the first list, timed as a block (default 3000)
  --reps N                 requests of each kind per session (default 5; --quick: 3)
  --calls N                steady tools/call throughput: at most N calls (default 2000; --quick: 300)
  --call-seconds S         ... or S seconds, whichever ends first (default 2; --quick: 1)
  --binary PATH            benchmark this compiled binary instead of building one
  --debug-timing           pass --debug-timing to our server and summarise its load phases
  --store file|postgres    where our servers record uses: each HOME's SQLite file (default), or one
                           throwaway PostgreSQL cluster (test/helpers/postgres.ts) named by store:
  --quick                  smoke run: sizes 100,1000 and fewer runs; results go to bench/.out/
  --help                   show this help
`;

export class UsageError extends Error {}

function positiveInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} needs a positive whole number (got ${value ?? "nothing"})`);
  return n;
}

function positiveNumber(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`${flag} needs a positive number (got ${value ?? "nothing"})`);
  return n;
}

function sizeList(value: string | undefined): number[] {
  const sizes = (value ?? "").split(",").map((s) => positiveInt("--sizes", s.trim()));
  if (sizes.some((n) => n < 10)) throw new UsageError("--sizes: each size must be at least 10");
  return [...new Set(sizes)].sort((a, b) => a - b);
}

function modeList(value: string | undefined): Mode[] {
  const names = (value ?? "").split(",").map((s) => s.trim());
  for (const name of names) {
    if (!(MODES as readonly string[]).includes(name))
      throw new UsageError(`--modes: unknown mode "${name}" (choose from ${MODES.join(", ")})`);
  }
  return MODES.filter((m) => names.includes(m));
}

function targetList(value: string | undefined): TargetName[] {
  const names = (value ?? "").split(",").map((s) => s.trim());
  for (const name of names) {
    if (!(TARGET_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(`--targets: unknown target "${name}" (choose from ${TARGET_NAMES.join(", ")})`);
    }
  }
  return TARGET_NAMES.filter((t) => names.includes(t));
}

function storeOption(value: string | undefined): "file" | "postgres" {
  if (value === undefined || value === "file") return "file";
  if (value === "postgres") return value;
  throw new UsageError(`--store: choose file or postgres (got ${value})`);
}

/** Parses argv; returns null when --help was asked for. Throws UsageError on bad input. */
export function parseOptions(argv: readonly string[]): BenchOptions | null {
  const flags = new Map<string, string | undefined>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") return null;
    if (arg === "--quick" || arg === "--debug-timing") flags.set(arg, "");
    else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq > 0) flags.set(arg.slice(0, eq), arg.slice(eq + 1));
      else flags.set(arg, argv[++i]);
    } else throw new UsageError(`unexpected argument "${arg}"`);
  }
  const known = [
    "--sizes",
    "--runs",
    "--seed",
    "--targets",
    "--modes",
    "--first-calls",
    "--reps",
    "--calls",
    "--call-seconds",
    "--binary",
    "--store",
    "--debug-timing",
    "--quick",
  ];
  for (const flag of flags.keys()) if (!known.includes(flag)) throw new UsageError(`unknown flag ${flag}`);

  const quick = flags.has("--quick");
  const get = (flag: string): string | undefined => flags.get(flag);
  const seed = get("--seed");
  const binary = get("--binary");
  return {
    quick,
    sizes: flags.has("--sizes") ? sizeList(get("--sizes")) : quick ? [100, 1000] : [100, 1000, 10000],
    runs: flags.has("--runs") ? positiveInt("--runs", get("--runs")) : quick ? 3 : 15,
    seed: seed === undefined ? 42 : Number.isInteger(Number(seed)) ? Number(seed) : positiveInt("--seed", seed),
    targets: flags.has("--targets") ? targetList(get("--targets")) : [...TARGET_NAMES],
    modes: flags.has("--modes") ? modeList(get("--modes")) : [...MODES],
    firstCalls: flags.has("--first-calls") ? positiveInt("--first-calls", get("--first-calls")) : 3000,
    reps: flags.has("--reps") ? Math.max(2, positiveInt("--reps", get("--reps"))) : quick ? 3 : 5,
    calls: flags.has("--calls") ? positiveInt("--calls", get("--calls")) : quick ? 300 : 2000,
    callSeconds: flags.has("--call-seconds") ? positiveNumber("--call-seconds", get("--call-seconds")) : quick ? 1 : 2,
    debugTiming: flags.has("--debug-timing"),
    store: storeOption(get("--store")),
    ...(binary !== undefined && { binary }),
  };
}

export { USAGE };
