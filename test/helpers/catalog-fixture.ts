/**
 * A team's skill set as a catalog sees it: about fifty skills over two layers, YAML prompts and
 * tools beside Agent Skills folders, written the way people write them, with near-miss
 * neighbours on purpose (three kinds of review, two of release writing, two of incidents, four
 * of testing), a skill only people may run and one only the model uses.
 */

interface Entry {
  id: string;
  type?: "prompt" | "tool";
  title?: string;
  description: string;
  tags?: string[];
  /** Markdown headings of the body. */
  headings?: string[];
  /** Written as an Agent Skills folder in the project layer. */
  folder?: { files?: Record<string, string>; frontmatter?: string };
  layer?: "team" | "project";
}

const ENTRIES: readonly Entry[] = [
  {
    id: "review-pr",
    title: "Pull request review",
    description: "Review a pull request for correctness, tests, naming and risk before it merges.",
    tags: ["review", "git"],
    headings: ["Checklist", "Risk", "Tone of comments"],
  },
  {
    id: "review-security",
    title: "Security review",
    description: "Security review of a change: injection, authorization gaps, secrets and unsafe deserialisation.",
    tags: ["security", "review"],
    headings: ["OWASP top ten", "Secrets"],
  },
  {
    id: "review-ui",
    description: "Review UI changes for visual consistency, responsive layout and accessibility regressions.",
    tags: ["ui", "review", "frontend"],
  },
  {
    id: "pr-description",
    description: "Write a pull request description from a diff: what changed, why, how it was tested.",
    tags: ["git", "writing"],
  },
  {
    id: "commit-message",
    description: "Write a Conventional Commits message for the staged changes.",
    tags: ["git", "writing"],
    headings: ["Types", "Scope", "Breaking changes"],
  },
  {
    id: "changelog-entry",
    description: "Draft a changelog entry (Keep a Changelog format) for the next version.",
    tags: ["release", "docs"],
  },
  {
    id: "release-notes",
    description: "Write customer-facing release notes from the merged pull requests of a milestone.",
    tags: ["release", "writing"],
  },
  {
    id: "incident-postmortem",
    description: "Write a blameless postmortem after an incident or outage: timeline, impact, root cause, follow-ups.",
    tags: ["incident", "oncall"],
    headings: ["Timeline", "Impact", "Root cause", "Action items"],
    folder: {
      files: {
        "references/template.md": "# Postmortem template\n\n## Timeline\n\n## Impact\n",
        "references/examples/payments-outage.md": "# Payments outage, 2026-03-02\n\nA bad config push.\n",
      },
    },
  },
  {
    id: "incident-triage",
    description: "Triage a live incident: assess severity, pick an owner, start the comms channel.",
    tags: ["incident", "oncall"],
  },
  {
    id: "oncall-handoff",
    description: "Summarise an on-call shift for the next engineer: open alerts, ongoing work, watch items.",
    tags: ["oncall"],
  },
  {
    id: "debug-flaky-test",
    description: "Find out why a test fails intermittently: timing, shared state, ordering, the network.",
    tags: ["testing", "debugging"],
    headings: ["Reproduce", "Isolate", "Fix"],
  },
  {
    id: "debug-memory-leak",
    description: "Track down a memory leak in a long-running Node.js service with heap snapshots.",
    tags: ["debugging", "performance"],
  },
  {
    id: "debug-performance",
    title: "Performance profiling",
    description: "Profile slow endpoints and find latency regressions with flame graphs.",
    tags: ["performance", "debugging"],
  },
  {
    id: "write-unit-tests",
    description: "Write unit tests for a function or module: edge cases, table-driven cases, no mocks of what you own.",
    tags: ["testing"],
  },
  {
    id: "write-e2e-tests",
    description: "Write end-to-end browser tests with Playwright: fixtures, selectors, no sleeps.",
    tags: ["testing", "frontend"],
  },
  {
    id: "test-strategy",
    description: "Plan what to test for a feature across unit, integration and e2e layers.",
    tags: ["testing", "planning"],
  },
  {
    id: "sql-query-review",
    description: "Review a SQL query: missing indexes, N+1 access patterns, locking.",
    tags: ["database", "review"],
  },
  {
    id: "db-migration",
    title: "Database migration plan",
    description: "Plan a zero-downtime schema migration: expand, backfill, contract.",
    tags: ["database"],
  },
  {
    id: "db-index-advisor",
    type: "tool",
    description: "Suggest CREATE INDEX statements for a table and the columns a query filters on.",
    tags: ["database"],
  },
  {
    id: "k8s-manifest-review",
    description: "Review Kubernetes manifests: resource limits, liveness and readiness probes, security context.",
    tags: ["kubernetes", "review", "infra"],
  },
  {
    id: "helm-chart",
    description: "Scaffold a Helm chart with values, templates and a NOTES.txt.",
    tags: ["kubernetes", "infra"],
  },
  {
    id: "terraform-plan-review",
    description: "Review a Terraform plan for destroys, replacements and drift before applying it.",
    tags: ["infra", "review"],
  },
  {
    id: "docker-optimize",
    title: "Dockerfile slimming",
    description: "Shrink a Dockerfile's image: multi-stage builds, layer caching, a distroless base.",
    tags: ["infra", "docker"],
  },
  {
    id: "ci-pipeline-fix",
    description: "Fix a failing GitHub Actions workflow: read the logs, reproduce locally, pin versions.",
    tags: ["ci", "infra"],
  },
  {
    id: "api-design",
    title: "REST API design",
    description: "Design a REST API: resources, status codes, error bodies, pagination and versioning.",
    tags: ["api", "design"],
  },
  {
    id: "graphql-schema",
    description: "Design a GraphQL schema: types, connections, nullability and mutations.",
    tags: ["api", "design"],
  },
  {
    id: "openapi-stub",
    type: "tool",
    description: "Generate an OpenAPI 3.1 stub from a list of HTTP routes.",
    tags: ["api"],
  },
  {
    id: "write-adr",
    title: "Architecture decision record",
    description: "Write an ADR: context, decision, consequences, alternatives considered.",
    tags: ["architecture", "writing"],
  },
  {
    id: "refactor-extract",
    description: "Refactor safely by extracting functions and modules behind tests.",
    tags: ["refactoring"],
  },
  {
    id: "rename-symbol",
    type: "tool",
    description: "Plan renaming a symbol across the codebase: files, imports and public API.",
    tags: ["refactoring"],
  },
  {
    id: "explain-code",
    description: "Explain unfamiliar code to a newcomer, top-down, with the why behind each part.",
    tags: ["learning"],
  },
  {
    id: "onboarding-guide",
    description: "Write an onboarding guide for a new engineer joining the team: setup, people, first tasks.",
    tags: ["docs", "team"],
  },
  {
    id: "readme-writer",
    description: "Write or improve a project README: install, quick start, configuration.",
    tags: ["docs", "writing"],
  },
  {
    id: "docs-api-reference",
    description: "Write API reference documentation from the exported types and functions.",
    tags: ["docs", "api"],
  },
  {
    id: "translate-strings",
    type: "tool",
    description: "Translate UI strings into another locale, keeping placeholders intact.",
    tags: ["i18n", "ui"],
  },
  {
    id: "accessibility-audit",
    description: "Audit a page against WCAG 2.2: contrast, focus order, labels, keyboard use.",
    tags: ["accessibility", "frontend"],
  },
  {
    id: "react-component",
    description: "Write a React component with hooks, props types and tests.",
    tags: ["frontend", "react"],
  },
  {
    id: "typescript-types",
    description: "Tighten TypeScript types: generics, narrowing, no any at module boundaries.",
    tags: ["typescript"],
  },
  {
    id: "python-packaging",
    description: "Package a Python library with pyproject.toml and publish it to PyPI.",
    tags: ["python", "release"],
  },
  {
    id: "regex-builder",
    type: "tool",
    description: "Build a regular expression from examples and explain each part.",
    tags: ["text"],
  },
  {
    id: "cron-expression",
    type: "tool",
    description: "Write or explain a cron schedule expression in plain words.",
    tags: ["scheduling"],
  },
  {
    id: "jira-ticket",
    description: "Write a well-formed ticket: context, acceptance criteria, out of scope.",
    tags: ["planning", "writing"],
  },
  {
    id: "estimate-task",
    description: "Estimate a task in t-shirt sizes with its risks and unknowns.",
    tags: ["planning"],
  },
  {
    id: "meeting-notes",
    description: "Turn a meeting transcript into notes, decisions and action items with owners.",
    tags: ["writing", "team"],
  },
  {
    id: "threat-model",
    description: "STRIDE threat model of a design: assets, trust boundaries, mitigations.",
    tags: ["security", "design"],
  },
  {
    id: "secrets-scan",
    type: "tool",
    description: "List likely secrets (keys, tokens, passwords) in a diff.",
    tags: ["security"],
  },
  {
    id: "dependency-upgrade",
    description: "Upgrade a dependency: read its changelog, find breaking changes, run the tests.",
    tags: ["maintenance"],
  },
  {
    id: "license-check",
    description: "Check third-party licenses for compatibility with the project's license.",
    tags: ["legal", "maintenance"],
  },
  {
    id: "log-query",
    type: "tool",
    description: "Write a log search query for Loki or Elasticsearch from a question.",
    tags: ["observability"],
  },
  {
    id: "feature-flag-cleanup",
    description: "Remove a stale feature flag and the dead code behind it.",
    tags: ["maintenance", "refactoring"],
  },
  {
    id: "deploy",
    description: "Deploy the service to an environment",
    folder: { frontmatter: "argument-hint: <environment>\ndisable-model-invocation: true\n" },
  },
  {
    id: "house-style",
    description: "The team's writing style for documentation and messages, for the model to apply",
    tags: ["writing"],
    folder: { frontmatter: "user-invocable: false\n" },
  },
];

function yamlString(text: string): string {
  return JSON.stringify(text);
}

function yamlSkill(e: Entry): string {
  const body = [
    ...(e.headings ?? []).flatMap((h) => [`## ${h}`, "", `Notes on ${h.toLowerCase()}.`, ""]),
    `Apply ${e.id} to {{subject}}.`,
  ].join("\n");
  const lines = [
    `id: ${e.id}`,
    ...(e.title ? [`name: ${yamlString(e.title)}`] : []),
    `description: ${yamlString(e.description)}`,
    `type: ${e.type ?? "prompt"}`,
  ];
  if (e.tags?.length) lines.push(`tags: [${e.tags.join(", ")}]`);
  if ((e.type ?? "prompt") === "prompt") {
    lines.push("arguments:", "  - { name: subject, description: What to apply it to, required: false }");
    lines.push("prompt: |", ...body.split("\n").map((l) => `  ${l}`));
  } else {
    lines.push(
      "inputSchema:",
      "  type: object",
      "  properties:",
      "    input: { type: string, description: What to work on }",
      "  required: [input]",
      "  additionalProperties: false",
    );
    lines.push(`prompt: "${e.id}: {{input}}"`);
  }
  return `${lines.join("\n")}\n`;
}

function skillMd(e: Entry): string {
  const tags = e.tags?.length ? `metadata:\n  tags: ${e.tags.join(", ")}\n` : "";
  const headings = (e.headings ?? []).map((h) => `## ${h}\n\nNotes on ${h.toLowerCase()}.\n`).join("\n");
  return `---\nname: ${e.id}\ndescription: ${yamlString(e.description)}\n${e.folder?.frontmatter ?? ""}${tags}---\n# ${e.id}\n\n${headings}\nWork on: $ARGUMENTS\n`;
}

/** The fixture's files, for `makeFixture`; `builtin` keeps or drops the built-in skills. */
export function catalogFixtureFiles(options: { builtin?: boolean } = {}): Record<string, string> {
  const files: Record<string, string> = {
    "skill-central.yaml": `builtin: ${options.builtin ?? false}\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n  - { name: project, path: ./.skills, priority: 100 }\n`,
  };
  for (const e of ENTRIES) {
    if (e.folder) {
      files[`.skills/${e.id}/SKILL.md`] = skillMd(e);
      for (const [path, text] of Object.entries(e.folder.files ?? {})) files[`.skills/${e.id}/${path}`] = text;
    } else files[`${e.layer ?? "team"}/${e.id}.yaml`] = yamlSkill(e);
  }
  return files;
}

export const CATALOG_SKILL_IDS: readonly string[] = ENTRIES.map((e) => e.id);
export const CATALOG_TOOL_IDS: readonly string[] = ENTRIES.filter((e) => e.type === "tool").map((e) => e.id);
