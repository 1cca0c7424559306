/** The page's DOM helpers: `el()` builds elements (no HTML strings), and data requests to the board's own server. */

type Child = Node | string | undefined | false;
/** A child, or a list of them: lists are passed as they are, never spread (a spread of thousands overflows the stack). */
type Children = Child | readonly Child[];

function appendAll(node: ParentNode, children: readonly Children[]): void {
  for (const child of children)
    if (Array.isArray(child)) {
      for (const c of child as readonly Child[]) if (c !== undefined && c !== false) node.append(c);
    } else if (child !== undefined && child !== false) node.append(child as Node | string);
}

/** An element with attributes and children; `undefined` and `false` children are left out. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Children[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  appendAll(node, children);
  return node;
}

/** `node`'s children replaced by `children` (lists taken whole, as `el` takes them). */
export function replaceWith(node: ParentNode, ...children: Children[]): void {
  node.replaceChildren();
  appendAll(node, children);
}

export function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

/** A data request to the board's own server (same origin: the guard admits it). */
export async function getJson<T>(path: string, init?: RequestInit): Promise<T | undefined> {
  const response = await fetch(path, init);
  if (response.status === 404) return undefined;
  // The cookie is this run's: a board started again (a new token) must be opened by its new URL.
  if (response.status === 401 || response.status === 403)
    throw new Error("this board no longer admits this page: open the URL `skill-central board` printed");
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return (await response.json()) as T;
}

/** `file:line:col` as editors read it; just the file when there is no position. */
export function place(file: string, line?: number, column?: number): string {
  if (line === undefined) return file;
  return `${file}:${line}${column === undefined ? "" : `:${column}`}`;
}

/** A table cell: text, nodes, or several of them. */
export type Cell = Child | readonly Child[];

/** A column's heading; numeric columns are aligned right. */
export interface Column {
  title: string;
  numeric?: boolean;
}

/** A table named `label` (its accessible name), a header row of `columns`, then one row per entry of `rows`. */
export function table(
  label: string,
  columns: readonly Column[],
  rows: readonly (readonly Cell[])[],
  rowClass?: (index: number) => string,
): HTMLTableElement {
  const cellClass = (i: number): Record<string, string> => (columns[i]?.numeric ? { class: "num" } : {});
  return el(
    "table",
    { "aria-label": label },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        columns.map((c, i) => el("th", { scope: "col", ...cellClass(i) }, c.title)),
      ),
    ),
    el(
      "tbody",
      {},
      rows.map((cells, r) =>
        el(
          "tr",
          rowClass ? { class: rowClass(r) } : {},
          cells.map((cell, i) => el("td", cellClass(i), Array.isArray(cell) ? cell : [cell as Child])),
        ),
      ),
    ),
  );
}
