/** The open skill on the page: its document, its form rendered live through the server, and copying what it rendered. */
import { localTime } from "./dates.ts";
import { byId, el, getJson, place, replaceWith, table } from "./dom.ts";
import { auditSection, usageSection } from "./insights-view.ts";
import { skillEvalsSection } from "./evals-view.ts";
import { renderMarkdown, renderTemplate } from "./markdown.ts";
import type { EvalsView, Field, GovernanceView, RenderAnswer, SkillPage, SkillUsageView } from "../wire.ts";

/** The form's values as a client would send them: numbers as numbers, JSON fields parsed; empty fields left out. */
function fieldValue(field: Field, input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): unknown {
  if (field.input === "boolean") return (input as HTMLInputElement).checked;
  const raw = input.value;
  if (raw === "") return undefined;
  if (field.input === "number" || field.input === "integer") {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  if (field.input === "json") {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

function inputFor(
  field: Field,
  previous: string | undefined,
): HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement {
  const name: Record<string, string> = { name: field.name, ...(field.required && { "aria-required": "true" }) };
  if (field.choices) {
    const select = el(
      "select",
      name,
      el("option", { value: "" }, "(none)"),
      field.choices.map((c) => el("option", { value: c }, c)),
    );
    select.value = previous ?? (typeof field.default === "string" ? field.default : "");
    return select;
  }
  if (field.input === "boolean") {
    const box = el("input", { ...name, type: "checkbox" });
    box.checked = previous !== undefined ? previous === "true" : field.default === true;
    return box;
  }
  const typed: Record<string, string> = field.input === "number" || field.input === "integer" ? { type: "number" } : {};
  const input = field.input === "json" ? el("textarea", { ...name, rows: "2" }) : el("input", { ...name, ...typed });
  input.value = previous ?? (field.default !== undefined ? String(field.default) : "");
  return input;
}

/** The form's current text per argument, so a live update keeps what the person typed. */
function currentValues(form: HTMLFormElement | null): Map<string, string> {
  const values = new Map<string, string>();
  if (!form) return values;
  for (const input of form.querySelectorAll<HTMLInputElement>("[name]"))
    values.set(input.name, input.type === "checkbox" ? String(input.checked) : input.value);
  return values;
}

let renderSeq = 0;

/** Renders through the server (prompts/get or tools/call) whenever an input changes; the latest answer wins. */
async function preview(skill: SkillPage, form: HTMLFormElement): Promise<void> {
  const seq = ++renderSeq;
  const args: Record<string, unknown> = {};
  for (const field of skill.fields) {
    const input = form.elements.namedItem(field.name) as HTMLInputElement | null;
    const value = input ? fieldValue(field, input) : undefined;
    if (value !== undefined) args[field.name] = value;
  }
  const answer = await getJson<RenderAnswer>(`/api/render/${encodeURIComponent(skill.id)}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ arguments: args }),
  });
  if (seq !== renderSeq) return;
  const out = byId("preview-text");
  if (!answer) replaceWith(out, el("p", { class: "render-failed" }, "This skill is no longer served."));
  else if (answer.ok) replaceWith(out, el("pre", {}, answer.text));
  else
    replaceWith(
      out,
      el(
        "ul",
        { class: "render-failed" },
        answer.problems.map((p) => el("li", {}, p)),
      ),
    );
  document.body.dataset.previewSeq = String(seq);
}

function chainTable(skill: SkillPage): HTMLElement {
  return el(
    "table",
    { "aria-label": "Provenance" },
    el(
      "thead",
      {},
      el("tr", {}, el("th", {}, "Layer"), el("th", {}, "Priority"), el("th", {}, "File"), el("th", {}, "Status")),
    ),
    el(
      "tbody",
      {},
      skill.chain.map((c) =>
        el(
          "tr",
          {},
          el("td", {}, c.layer),
          el("td", {}, String(c.priority)),
          el("td", {}, c.file),
          el("td", {}, c.status === "effective" ? "effective (served)" : (c.why ?? c.status)),
        ),
      ),
    ),
  );
}

function examplesList(skill: SkillPage): HTMLElement {
  if (skill.examples.length === 0) return el("p", {}, "No inline examples.");
  return el(
    "ul",
    { "aria-label": "Examples" },
    skill.examples.map((e) =>
      el(
        "li",
        {},
        `Example ${e.number} (${JSON.stringify(e.arguments)}): `,
        el("span", { class: e.pass ? "verdict-passed" : "verdict-failed" }, e.pass ? "passed" : "failed"),
        e.reason !== undefined && ` — ${e.reason}`,
      ),
    ),
  );
}

function filesTable(skill: SkillPage): HTMLElement | undefined {
  if (!skill.files) return undefined;
  return el(
    "div",
    {},
    el("h3", {}, "Files"),
    table(
      "Files",
      [{ title: "Path" }, { title: "Size", numeric: true }, { title: "SHA-256" }],
      skill.files.map((f) => [
        f.path,
        `${f.size} B`,
        el(
          "div",
          { class: "digest" },
          el("code", { title: f.sha256 }, f.sha256),
          copyButton(f.sha256, `Copy the SHA-256 of ${f.path}`),
        ),
      ]),
    ),
  );
}

/** Copies `text`; the button says it did (a status screen readers hear), or that the browser refused. */
export function copyButton(text: string, label: string): HTMLButtonElement {
  const button = el("button", { type: "button", class: "copy", "aria-label": label, title: label }, "Copy");
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Copy refused";
    }
    setTimeout(() => {
      button.textContent = "Copy";
    }, 1500);
  });
  return button;
}

/** Whether bodies show as documents or as their source: the person's choice, kept across skills. */
let showSource = false;

/**
 * The body rendered as Markdown (markdown.ts: raw HTML is text), with a toggle to the file's
 * source; a tool, which has no body, shows its source.
 */
function documentOf(skill: SkillPage): HTMLElement {
  const source = el("pre", { "aria-label": "Source", class: "source" }, skill.source);
  if (skill.body === undefined) return el("div", {}, el("h3", {}, "Source"), source);
  const rendered = el("div", { class: "doc", "aria-label": "Document", role: "document" });
  // markdown-it with html: false: the only markup here is what CommonMark makes of the text (and,
  // for a YAML prompt, the page's own fields for its arguments: markdown.ts renderTemplate).
  rendered.innerHTML = skill.kind === "prompt" ? renderTemplate(skill.body) : renderMarkdown(skill.body);
  const toggle = el("button", { type: "button", class: "toggle", "aria-pressed": String(showSource) }, "Show source");
  const draw = () => {
    toggle.setAttribute("aria-pressed", String(showSource));
    rendered.hidden = showSource;
    source.hidden = !showSource;
  };
  toggle.addEventListener("click", () => {
    showSource = !showSource;
    draw();
  });
  draw();
  return el("div", {}, el("div", { class: "doc-head" }, el("h3", {}, "Document"), toggle), rendered, source);
}

function formOf(skill: SkillPage, previous: Map<string, string>): HTMLFormElement {
  const form = el("form", { "aria-label": "Arguments" });
  for (const [index, field] of skill.fields.entries()) {
    const input = inputFor(field, previous.get(field.name));
    input.id = `arg-${index}`;
    input.setAttribute("aria-describedby", `arg-${index}-hint`);
    const hint = [
      field.required ? "required" : "optional",
      field.input === "json" ? "JSON" : "",
      field.description ?? "",
    ]
      .filter(Boolean)
      .join(" · ");
    form.append(
      el(
        "div",
        { class: "field" },
        el("label", { for: input.id }, field.name),
        input,
        el("span", { id: `${input.id}-hint` }, hint),
      ),
    );
  }
  if (skill.fields.length === 0) form.append(el("p", {}, "No arguments."));
  form.addEventListener("input", () => void preview(skill, form));
  form.addEventListener("change", () => void preview(skill, form));
  form.addEventListener("submit", (event) => event.preventDefault());
  return form;
}

/** A remote layer's source and who signed it (docs/provenance.md). */
function originLine(skill: SkillPage): HTMLElement | undefined {
  const origin = skill.origin;
  if (!origin) return undefined;
  return el(
    "p",
    { "aria-label": "Origin" },
    "From ",
    el("code", {}, origin.url),
    origin.commit !== undefined ? [" at ", el("code", {}, origin.commit.slice(0, 12))] : [],
    " · ",
    origin.signer
      ? ["signed by ", el("strong", {}, origin.signer.principal), " ", el("code", {}, origin.signer.fingerprint)]
      : ["signature not checked (the layer has no signers)"],
  );
}

/** The signed approval the skill is served under (docs/governance.md). */
function approvalLine(skill: SkillPage): HTMLElement | undefined {
  const a = skill.approval;
  if (!a) return undefined;
  return el(
    "p",
    { "aria-label": "Approval" },
    "Approved by ",
    el("strong", {}, a.principal),
    " on ",
    el("time", { datetime: a.at }, localTime(Date.parse(a.at))),
    " at ",
    el("code", {}, a.digest),
  );
}

/** Why a skill that is not served is held back: the admin log's block, or the approval it awaits. */
function heldLine(id: string, governance: GovernanceView | undefined): HTMLElement | undefined {
  if (!governance?.on) return undefined;
  const block = governance.blocked.find((b) => b.id === id);
  if (block)
    return el(
      "p",
      { "aria-label": "Block" },
      `Blocked${block.digest !== undefined ? ` at ${block.digest}` : ""} by `,
      el("strong", {}, block.principal),
      " on ",
      el("time", { datetime: block.at }, localTime(Date.parse(block.at))),
      `: ${block.reason}`,
    );
  const waiting = governance.awaiting.find((a) => a.id === id);
  if (waiting) return el("p", { "aria-label": "Awaiting approval" }, `Layer ${waiting.layer}: ${waiting.why}`);
  return undefined;
}

/** The skill's page: what it is, where it comes from, its form and Preview, its examples, files and source. */
export async function showSkill(
  skill: SkillPage | undefined,
  id: string,
  usage: SkillUsageView | undefined,
  governance?: GovernanceView,
  evals?: EvalsView,
): Promise<void> {
  const section = byId("skill");
  const previous = currentValues(section.querySelector("form"));
  if (!skill) {
    section.setAttribute("aria-label", "Skill");
    replaceWith(
      section,
      el("h2", {}, id),
      el("p", { class: "error" }, `"${id}" is not served.`),
      [heldLine(id, governance)].filter((e) => e !== undefined),
    );
    return;
  }
  section.setAttribute("aria-label", `Skill ${skill.id}`);
  const form = formOf(skill, section.dataset.skill === skill.id ? previous : new Map());
  section.dataset.skill = skill.id;
  replaceWith(
    section,
    el("h2", {}, skill.id, skill.title !== undefined && ` — ${skill.title}`),
    el("p", { class: "lede" }, skill.description),
    el(
      "p",
      { class: "meta" },
      `${skill.kind} · layer ${skill.layer} · `,
      el("code", {}, place(skill.file, skill.line)),
      " ",
      skill.tags.map((t) => el("span", { class: "tag" }, t)),
    ),
    skill.audit ? [auditSection(skill.audit)] : [],
    documentOf(skill),
    el("h3", {}, "Provenance"),
    [originLine(skill), approvalLine(skill)].filter((e) => e !== undefined),
    chainTable(skill),
    el("h3", {}, "Arguments"),
    form,
    el(
      "section",
      { "aria-label": "Preview", id: "preview" },
      el("h3", {}, "Preview"),
      el("div", { id: "preview-text" }),
    ),
    el("h3", {}, "Examples"),
    examplesList(skill),
    usageSection(skill.id, usage),
    skillEvalsSection(skill.id, evals),
    [filesTable(skill)].filter((e) => e !== undefined),
  );
  await preview(skill, form);
}
