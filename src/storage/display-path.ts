import { relative } from "node:path";

/** Paths inside the project are shown relative to it: shorter, and clickable in a terminal. */
export function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith("..") || rel === "" ? file : rel;
}
