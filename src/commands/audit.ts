/** `skill-central audit`: every skill of the layers looked into for what the audit's rules find, as text, JSON or SARIF. */
import { join, relative, sep } from "node:path";
import { IGNORED_PIN_HINT, pinOf } from "../audit/allow-pins.ts";
import { AuditCache } from "../audit/cache.ts";
import { colourDiagnostic } from "../cli-output/colour.ts";
import { RULES_BY_ID, reaches, type Severity } from "../audit/rules.ts";
import { sarifLog } from "../audit/sarif.ts";
import { DEFAULT_AUDIT_SETTINGS } from "../config/audit-settings.ts";
import { auditRecords, type RecordAudit } from "../load/audit-records.ts";
import { IndexWriter } from "../load/index-writer.ts";
import { loadSkills, referencedVersions, type LoadResult } from "../load/load-skills.ts";
import { StartupIndex, startupIndexEnabled, startupIndexPath } from "../load/startup-index.ts";
import { formatDiagnostic } from "../diagnostics.ts";
import { VERSION } from "../version.ts";
import { visibleLine } from "../visible-text.ts";
import { command, EXIT_FAILURE, EXIT_OK, plural, reportLoad, type CommandContext } from "./support/command.ts";
import { withLayerPlaces } from "./support/sarif-places.ts";
import { choice } from "./support/options.ts";

const FORMATS = ["text", "json", "sarif"] as const;
const FAIL_ON = ["high", "medium", "low", "never"] as const;

const toPosix = (path: string) => path.split(sep).join("/");

/** A skill's finding paths as a URI prefix relative to the project, when its folder is inside the project. */
function projectPrefix(cwd: string, audit: RecordAudit): string | undefined {
  const rel = relative(cwd, audit.base);
  if (rel.startsWith("..") || rel.startsWith(sep) || /^[A-Za-z]:/.test(rel)) return undefined;
  return rel === "" ? "" : `${toPosix(rel)}/`;
}

function sarifUriBase(layer: string): string {
  return `LAYER_${layer.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}`;
}

/**
 * The skills through the server's start-up index, where the shipped forms keep one: the digests of
 * folder files worked out before (by a server, or an earlier audit) are not read again, and those
 * worked out now are written for the next run (`done`).
 */
async function loadIndexed(ctx: CommandContext): Promise<{ loaded: LoadResult; done: () => void }> {
  const index = startupIndexEnabled() ? StartupIndex.open(startupIndexPath(ctx.cwd)) : undefined;
  const loaded = await loadSkills({
    cwd: ctx.cwd,
    ...(ctx.builtin === false && { builtin: false }),
    ...(ctx.verbose && { cachePaths: true }),
    ...(index && { index }),
  });
  const done = () => {
    if (!index) return;
    const writer = new IndexWriter(index, loaded.store, loaded.digests, () => 0);
    writer.enqueue(loaded.unindexed, referencedVersions(loaded));
    writer.flush();
    writer.close();
    index.close();
  };
  return { loaded, done };
}

/**
 * A finding's file as people read it: inside the project, relative to the skill's folder (the
 * header names the skill); outside it, as every other command names it (`team@0f1e1a4:…`,
 * `builtin:…`; the cache path with --verbose).
 */
function findingPlace(
  ctx: CommandContext,
  display: (path: string) => string,
  audit: RecordAudit,
  file: string,
): string {
  return projectPrefix(ctx.cwd, audit) !== undefined ? file : display(join(audit.base, file));
}

/** One skill's audit as `--format json` gives it. */
function skillJson(a: RecordAudit & { allowed?: string }, display: (path: string) => string) {
  return {
    id: a.id,
    layer: a.layer,
    digest: a.digest,
    verdict: a.verdict,
    findings: a.findings.map(({ rule, severity, file, line, column, message }) => ({
      rule,
      severity,
      file,
      // The file as every other command names it: `.skills/x/SKILL.md`, `team@0f1e1a4:x/SKILL.md`.
      path: display(join(a.base, file)),
      line,
      column,
      message,
    })),
    ...(a.allowed !== undefined && { allowed: a.allowed }),
  };
}

function textReport(
  ctx: CommandContext,
  audits: readonly (RecordAudit & { allowed?: string })[],
  display: (path: string) => string,
): string {
  const c = ctx.colours;
  const verdictWord = { pass: c.green("pass"), warn: c.yellow("warn"), block: c.red(c.bold("block")) };
  const sevWord: Record<Severity, string> = { high: c.red("high"), medium: c.yellow("medium"), low: c.dim("low") };
  const out: string[] = [];
  for (const a of audits) {
    if (a.findings.length === 0 && a.partial === undefined) continue;
    // Ids, layer names, the allow entry's reason and the findings' text come from files: shown, never obeyed.
    const allowed = a.allowed !== undefined ? c.dim(` allowed: ${visibleLine(a.allowed)}`) : "";
    out.push(
      `${verdictWord[a.verdict]}  ${c.bold(visibleLine(a.id))} ${c.dim(`(layer ${visibleLine(a.layer)})`)}${a.digest ? c.dim(` ${a.digest}`) : ""}${allowed}\n`,
    );
    if (a.partial !== undefined)
      out.push(`  ${c.yellow("note")}: only SKILL.md was audited: ${visibleLine(a.partial)}\n`);
    for (const f of a.findings) {
      out.push(
        `  ${visibleLine(findingPlace(ctx, display, a, f.file))}:${f.line}:${f.column}  ${sevWord[f.severity]}  ${c.cyan(f.rule)}  ${visibleLine(f.message)}\n`,
      );
      const fix = RULES_BY_ID.get(f.rule)?.fix;
      if (fix) out.push(`      ${c.dim(`fix: ${fix}`)}\n`);
    }
  }
  return out.join("");
}

export const spec = command({
  name: "audit",
  summary: "Look inside every skill for hidden text, injected instructions, remote code, secrets and payloads",
  usage: "audit [--format text|json|sarif] [--fail-on high|medium|low|never]",
  description:
    "Audits every skill of the layers as `validate` sees them: frontmatter, body and every file of a\n" +
    "skill folder, and YAML prompts and tools. Each finding names its rule, severity, file (relative\n" +
    "to the skill's folder, or to the layer for a YAML skill), line and column. A skill's verdict is\n" +
    "block (a high finding), warn (medium or low only) or pass. Exit 1 when a finding reaches\n" +
    "--fail-on (default high; skills pinned in audit.allow do not count), 0 otherwise. Results are\n" +
    "cached by content, so a second run reads nothing unchanged. See docs/audit.md for every rule.",
  options: {
    format: choice(FORMATS, "text (grouped by skill), json, or sarif (SARIF 2.1.0 for code scanning)", {
      default: "text",
    }),
    "fail-on": choice(FAIL_ON, "The least severe finding that makes the exit status 1 (never: always 0)", {
      default: "high",
    }),
  },
  examples: [
    "skill-central audit",
    "skill-central audit --format json",
    "skill-central audit --format sarif > skills.sarif",
    "skill-central audit --fail-on medium",
  ],
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const format = ctx.json ? "json" : ctx.options.format;
    const failOn = ctx.options["fail-on"];
    const { loaded, done } = await loadIndexed(ctx);
    reportLoad(ctx, loaded);
    const settings = loaded.config.audit ?? DEFAULT_AUDIT_SETTINGS;
    const cache = new AuditCache();
    await cache.load();
    // A digest is a .tar.gz of a folder: worked out where it is shown, or where an allow entry needs it.
    const allowIds = new Set(settings.allow.map((a) => a.skill));
    const audits = auditRecords(
      loaded,
      cache,
      format !== "text" || ((id, findings) => findings.length > 0 || allowIds.has(id)),
      { digests: loaded.digests },
    );
    await cache.save();
    done();
    const withAllow = audits.map((a): RecordAudit & { allowed?: string } => {
      const { pin, ignored } = pinOf(settings.allow, a);
      // Said only where the pin would have mattered: a skill with findings.
      for (const { file, message } of a.findings.length > 0 ? ignored : [])
        ctx.err(
          `${colourDiagnostic(visibleLine(formatDiagnostic({ severity: "warning", code: "config", file, message, hint: IGNORED_PIN_HINT }, { display: loaded.display })), ctx.colours)}\n`,
        );
      return pin ? { ...a, allowed: pin.reason } : a;
    });
    const failed = withAllow.some(
      (a) =>
        a.allowed === undefined && a.findings.some((f) => reaches(f.severity, failOn === "never" ? "never" : failOn)),
    );

    if (format === "json") {
      ctx.out(`${JSON.stringify({ skills: withAllow.map((a) => skillJson(a, loaded.display)) }, null, 2)}\n`);
    } else if (format === "sarif") {
      const skills = withAllow.map((a) => {
        const prefix = projectPrefix(ctx.cwd, a);
        // Outside the project (built-in, git and url copies): relative to the layer's folder.
        const inLayer = toPosix(relative(a.layerDir, a.base));
        return {
          id: a.id,
          layer: a.layer,
          findings: a.findings,
          uriPrefix: prefix ?? (inLayer === "" ? "" : `${inLayer}/`),
          ...(prefix === undefined && { uriBaseId: sarifUriBase(a.layer) }),
        };
      });
      const log = withLayerPlaces(sarifLog(skills, VERSION), withAllow, loaded, ctx.verbose === true);
      ctx.out(`${JSON.stringify(log, null, 2)}\n`);
    } else {
      ctx.out(textReport(ctx, withAllow, loaded.display));
    }
    const count = (v: string) => withAllow.filter((a) => a.verdict === v).length;
    const findings = withAllow.reduce((n, a) => n + a.findings.length, 0);
    const c = ctx.colours;
    ctx.err(
      `${plural(withAllow.length, "skill")} audited: ${count("block") > 0 ? c.red(`${count("block")} block`) : "0 block"}, ${count("warn")} warn, ${count("pass")} pass (${plural(findings, "finding")})${failed ? c.red(`; findings at or above ${failOn}`) : ""}\n`,
    );
    return failed ? EXIT_FAILURE : EXIT_OK;
  },
});
