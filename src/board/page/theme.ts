/**
 * Light or dark: the system's choice (`prefers-color-scheme`) until the person picks one with
 * the toggle, which the page remembers in localStorage. The choice sets `data-theme` on <html>;
 * board.css keys every colour on it.
 */
import { byId } from "./dom.ts";

const KEY = "skill-central-board-theme";
type Theme = "light" | "dark";

function stored(): Theme | undefined {
  try {
    const value = localStorage.getItem(KEY);
    return value === "light" || value === "dark" ? value : undefined;
  } catch {
    return undefined;
  }
}

const system = (): Theme => (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");

function apply(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  const toggle = byId<HTMLButtonElement>("theme");
  toggle.setAttribute("aria-pressed", String(theme === "dark"));
  toggle.title = `Switch to the ${theme === "dark" ? "light" : "dark"} theme`;
}

export function setUpTheme(): void {
  apply(stored() ?? system());
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    if (stored() === undefined) apply(system());
  });
  byId("theme").addEventListener("click", () => {
    const next: Theme = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // Storage refused (a private window): the choice lasts for this page.
    }
    apply(next);
  });
}
