/**
 * The view in the URL, so a link shows the same view and back and forward step through views:
 * `#/skill/<id>?client=cursor&audit=block&q=review&problems=all`, `#/?…` for the Overview, or
 * `#/evals?…` for the Evals view.
 * A hash the board wrote always holds a `?` (even with every choice at its default): a hash
 * without one is a plain link to a skill (`#/skill/<id>`), which keeps the choices on screen.
 */

export interface UrlView {
  /** The skill shown, or undefined for the Overview (or the Evals view). */
  skill: string | undefined;
  /** The Evals view, when no skill is shown. */
  evals?: boolean;
  /** The client picked (`/api/client/<key>`), or "". */
  client: string;
  /** The audit filter: "", "block" or "warn". */
  audit: string;
  /** The search box's text. */
  query: string;
  /** Problems of every layer, not only the layers this project owns. */
  allProblems: boolean;
}

const AUDITS = new Set(["", "block", "warn"]);

/** The view a hash names; `undefined` choices when it is a plain link (no `?`): the caller keeps its own. */
export function parseHash(hash: string): {
  skill: string | undefined;
  evals?: true;
  choices?: Omit<UrlView, "skill" | "evals">;
} {
  const text = hash.replace(/^#/, "");
  const mark = text.indexOf("?");
  const path = mark < 0 ? text : text.slice(0, mark);
  const match = /^\/skill\/(.+)$/.exec(path);
  let skill: string | undefined;
  try {
    skill = match ? decodeURIComponent(match[1]!) : undefined;
  } catch {
    skill = undefined;
  }
  const evals = path === "/evals" ? ({ evals: true } as const) : {};
  if (mark < 0) return { skill, ...evals };
  const params = new URLSearchParams(text.slice(mark + 1));
  const audit = params.get("audit") ?? "";
  return {
    skill,
    ...evals,
    choices: {
      client: params.get("client") ?? "",
      audit: AUDITS.has(audit) ? audit : "",
      query: params.get("q") ?? "",
      allProblems: params.get("problems") === "all",
    },
  };
}

/** The hash that names `view`: its defaults left out, the `?` always there. */
export function hashOf(view: UrlView): string {
  const params = new URLSearchParams();
  if (view.client !== "") params.set("client", view.client);
  if (view.audit !== "") params.set("audit", view.audit);
  if (view.query !== "") params.set("q", view.query);
  if (view.allProblems) params.set("problems", "all");
  const path = view.skill !== undefined ? `/skill/${encodeURIComponent(view.skill)}` : view.evals ? "/evals" : "/";
  return `#${path}?${params.toString()}`;
}
