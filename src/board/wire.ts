/**
 * What the board's server sends its page: plain JSON, the one contract between src/board/ and
 * src/board/page/. The page imports these types only.
 */

/** A served skill in the list: where it comes from, and how many candidates it shadows. */
export interface SkillRow {
  id: string;
  type: "prompt" | "tool";
  /** A folder skill is an Agent Skills folder (SKILL.md); the others are YAML files. */
  kind: "prompt" | "tool" | "folder";
  description: string;
  tags: string[];
  layer: string;
  file: string;
  line: number;
  /** Candidates of the same id this one wins over. */
  shadows: number;
  /** The audit's verdict, when the board has one (no findings here: the skill's page has them). */
  audit?: SkillAudit["verdict"];
  /** Milliseconds since the epoch when the served file last changed on disk (the Overview's "recently changed"). */
  changed?: number;
}

/** One finding, as `validate` gives it. */
export interface ProblemRow {
  line?: number;
  column?: number;
  severity: "error" | "warning" | "note";
  rule: string;
  message: string;
  hint?: string;
}

export interface ProblemGroup {
  /** The file as people read it; empty for findings about no file. */
  file: string;
  /**
   * Whether the file is in a layer this project owns (a folder of this machine: config/owned-layer.ts),
   * or is about no layer at all (a config file): the Problems panel shows these by default.
   */
  owned: boolean;
  problems: ProblemRow[];
}

export interface ClientChoice {
  /** The key the page sends back (`/api/client/<key>`). */
  key: string;
  label: string;
}

export interface BoardSummary {
  /** Counts the updates since the board started (a load, a failed reload, a load's audit arriving); the page shows the latest. */
  version: number;
  skills: SkillRow[];
  problems: ProblemGroup[];
  clients: ClientChoice[];
  /** The configured layers, highest priority first, and whether this project owns each (config/owned-layer.ts). */
  layers: { name: string; priority: number; owned: boolean }[];
  /** A reload that failed as a whole (the previous skills stay served). */
  reloadError?: string;
  /** Blocks, approvals awaited and the admin log's newest entries (docs/governance.md). */
  governance: GovernanceView;
  /** Each skill's last eval results in the eval workspace, worst first (docs/eval.md). */
  evals: EvalsView;
}

/** The eval workspace as the board read it: each skill's newest results, the skills never run, and files skipped. */
export interface EvalsView {
  /** The workspace as people read it; `configured` when a config's `eval.workspace` names it. */
  workspace: string;
  configured: boolean;
  /** `iteration-N` folders found (0: no workspace, or an empty one). */
  iterations: number;
  /** Skills with results, worst first: worse than the baseline, under a threshold, needing a recording, then the rest. */
  results: EvalRow[];
  /** Served skills with a trigger set or test cases and no result in the workspace, by id. */
  notRun: { id: string; triggerSet: boolean; testCases: boolean }[];
  /** Results files or entries skipped (half written, not JSON, the wrong shape), each at file:line:col. */
  skipped: { file: string; line?: number; column?: number; message: string }[];
}

/** Why a skill sits where it does among the results, the first that applies. */
export type EvalStanding = "worse" | "under-threshold" | "needs-recording" | "ok";

export interface EvalRow {
  id: string;
  /** False for a skill with results that is no longer served. */
  served: boolean;
  standing: EvalStanding;
  /** The standing in words ("trigger rate 33% is under the threshold 50%"); absent when ok. */
  why?: string;
  routing?: RoutingEval;
  model?: ModelEval;
}

/** The newest `eval --routing` result for a skill: a proxy for a model's choice. */
export interface RoutingEval {
  iteration: number;
  /** ISO 8601: when routing.json was written. */
  at: string;
  client?: string;
  minRecall?: number;
  reachable: boolean;
  positives: number;
  negatives: number;
  recallAt1: number | null;
  recallAt3: number | null;
  falseFires: number;
  /** Who won the should-trigger queries it did not, most first ("(none)": no skill matched). */
  wonInstead: { skill: string; times: number }[];
}

/** The newest model run for a skill (benchmark.json): with the skill and without it. */
export interface ModelEval {
  iteration: number;
  /** ISO 8601, the run's metadata.timestamp, when it has one. */
  at?: string;
  model?: string;
  provider?: string;
  client?: string;
  replayed?: boolean;
  threshold?: number;
  runsPerConfiguration?: number;
  evalsRun: number;
  withSkill: number | null;
  withoutSkill: number | null;
  /** with − without, in pass rate. */
  delta: number | null;
  triggerRate: number | null;
  verdict: "better" | "worse" | "same" | "not-run" | "needs-recording";
  errors: number;
}

/** One admin log entry, newest first on the page; `verified` false shows as NOT VERIFIED with `problem`. */
export interface AdminLogRow {
  /** ISO 8601. */
  at: string;
  principal: string;
  action: "approve" | "block" | "unblock";
  skill: string;
  digest?: string;
  reason: string;
  verified: boolean;
  problem?: string;
}

/** Off when the config names no approvers; otherwise what the load obeyed. */
export type GovernanceView =
  | { on: false }
  | {
      on: true;
      /** Skills not served because the admin log blocks them (digest: only that version). */
      blocked: { id: string; principal: string; at: string; reason: string; digest?: string }[];
      /** Skills that need an approval and have none at their digest; `why` names what changed since the approved one. */
      awaiting: { id: string; layer: string; digest?: string; why: string }[];
      /** The newest entries, newest first. */
      log: AdminLogRow[];
    };

export interface Field {
  name: string;
  required: boolean;
  /** How the form reads the input: text, a number, a checkbox, or JSON for what a flat form cannot hold. */
  input: "text" | "number" | "integer" | "boolean" | "json";
  description?: string;
  choices?: string[];
  default?: unknown;
}

export interface ChainEntry {
  layer: string;
  priority: number;
  file: string;
  status: "effective" | "shadowed" | "conflicted";
  /** Why the winner wins over this one, or what it conflicts with. */
  why?: string;
}

export interface ExampleRow {
  number: number;
  pass: boolean;
  arguments: Record<string, unknown>;
  reason?: string;
}

export interface SkillPage {
  id: string;
  type: "prompt" | "tool";
  kind: SkillRow["kind"];
  title?: string;
  description: string;
  tags: string[];
  layer: string;
  file: string;
  line: number;
  source: string;
  chain: ChainEntry[];
  fields: Field[];
  examples: ExampleRow[];
  files?: { path: string; size: number; sha256: string }[];
  /** A remote layer's source (git URL and commit, or index URL) and who signed it (docs/provenance.md). */
  origin?: { url: string; commit?: string; signer?: { principal: string; fingerprint: string } };
  /** The body as a Markdown document: a SKILL.md's text after its front matter, a prompt's template. */
  body?: string;
  audit?: SkillAudit;
  /** The signed approval it is served under (policy.approval). */
  approval?: { principal: string; fingerprint: string; at: string; digest: string };
}

export type RenderAnswer = { ok: true; text: string } | { ok: false; problems: string[] };

export interface ClientView {
  label: string;
  /** `clientInfo.name` this profile stands for; absent for a client that sends none. */
  name?: string;
  promptsShown: "shown" | "not-shown" | "unknown";
  capped: boolean;
  toolCap: number;
  plan: { catalog: boolean; run: boolean; toolSkills: boolean; why: string };
  prompts: { name: string; description: string }[];
  tools: { name: string; description: string }[];
  instructions: string;
  /**
   * Set when this client's `initialize` is answered without waiting for the skills (it neither
   * takes tools only nor caps them) and, answered before they load, gets other instructions
   * than `instructions`: those. Over stdio `initialize` always comes first.
   */
  instructionsBeforeLoad?: string;
}

/**
 * A skill's audit verdict (`skill-central audit`, docs/audit.md), as the board shows it. Absent
 * on a row or page when the board has no verdict for the skill (no audit was run for this load).
 */
export interface SkillAudit {
  verdict: "pass" | "warn" | "block";
  findings: AuditFinding[];
}

export interface AuditFinding {
  /** The file as people read it (relative to the project), and the 1-based line and column. */
  file: string;
  line?: number;
  column?: number;
  rule: string;
  /** The rule's severity (docs/audit.md): any `high` finding blocks the skill. */
  severity: "high" | "medium" | "low";
  message: string;
  /** How to fix it. */
  fix?: string;
}

/** What the picked client is sent to learn the catalog, in tokens, against its budget (`skill-central budget`). */
export interface CostView {
  label: string;
  /** What the counts are in (`o200k_base`). */
  tokenizer: string;
  /** What the client is sent under its plan: `initialize`'s instructions, tools/list, and prompts/list where shown. */
  sent: { tokens: number; chars: number };
  /** The client's budget (the configured tokenBudget, else its published one), and whether `sent` is over it. */
  limit: { tokens: number; source: "tokenBudget" | "published"; over: boolean } | null;
  /** "catalog" when tokenBudget switched the client from every skill to the catalog tools; `whole` is then what every skill would cost. */
  plan: "full" | "catalog";
  whole?: { tokens: number; chars: number };
  /** The costliest skills, most first (at most COSTLIEST). */
  costliest: { id: string; tokens: number }[];
  /** How many skills cost anything. */
  skillCount: number;
  /** Skills whose names and descriptions compete for the same request (`skill-central overlap`). */
  competing: CompetingView;
}

/**
 * The competing pairs, worked out once per load after it is shown (board/competing.ts):
 * "computing" until then; then the strongest pairs, highest first, and how many pairs reach the
 * threshold in all (a lower bound when `exact` is false: too many skills share words to score
 * every pair).
 */
export type CompetingView =
  | { state: "computing" }
  | { state: "ready"; pairs: { a: string; b: string; score: number }[]; total: number; exact: boolean };

/** Uses from the usage store (docs/usage.md). */
export interface UsageOverview {
  /** False when recording is off (`usage: { store: off }`). */
  recording: boolean;
  days: number;
  /** Served skills with no use in the last `days` days: the first UNUSED_SHOWN by id, and how many in all. */
  unused: string[];
  unusedCount: number;
  /** The served skills used most in the last `days` days, most first (at most MOST_USED_SHOWN); refusals are not uses. */
  mostUsed: { id: string; uses: number; refused: number }[];
  /** The store could not be read: one line naming it and why (then nothing is called unused). */
  problem?: string;
}

export interface SkillUsageView {
  recording: boolean;
  /** The chart's window, in days, one bucket a day, oldest first. */
  days: number;
  buckets: number[];
  /** Milliseconds since the epoch: the start of the window. */
  since: number;
  /** Uses in the whole history the store keeps (keepDays). */
  total: number;
  keepDays: number;
  /** Uses by client name in the kept history, most first. */
  clients: { name: string; uses: number }[];
  lastUsed?: number;
  /** The store could not be read: one line naming it and why (the figures are then empty). */
  problem?: string;
}

/**
 * "Add to my IDE" for one client (`/api/install/<key>`): the `install` command that writes the
 * entry, and the entry itself as install would write it into the client's project file (the
 * install module's own shaping), for a person who edits the file by hand.
 */
export interface IdeSetup {
  label: string;
  /** The command to run in the project: `skill-central install <client>`; absent when install does not know this client. */
  command?: string;
  /** The client's project config file as people read it, and the text install adds to a new one. */
  file?: string;
  snippet?: string;
  /** Why there is no command or snippet (the client is unknown to install, or refuses the entry). */
  note?: string;
}
