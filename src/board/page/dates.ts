/**
 * Dates as the viewer lives them: in the browser's time zone, written the one way the page
 * writes every date (2026-12-05, 2026-12-05 23:39), so a use at 23:39 UTC on the 5th is on the
 * 6th for a viewer in Tokyo and on the 5th in London.
 */
const pad = (n: number) => String(n).padStart(2, "0");

export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export function localTime(ms: number): string {
  const d = new Date(ms);
  return `${localDay(ms)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Where the viewer's day `daysBack` days before today starts (local midnight), in ms since the epoch. */
export function localMidnight(daysBack: number, now = new Date()): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  d.setDate(d.getDate() - daysBack);
  return d.getTime();
}
