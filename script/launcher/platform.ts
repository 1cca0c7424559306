/**
 * How the npm launcher and the release script agree on which package holds which binary.
 * Plain Node APIs only: this file is bundled into the launcher, which must run under Node 18+ and
 * under Bun alike.
 */
import { readdirSync } from "node:fs";

/** Every per-target package is `skill-central-<target>`, e.g. `skill-central-linux-x64-musl`. */
export const MAIN_PACKAGE = "skill-central";

/** The machine, in Node's words: `process.platform`, `process.arch`, and the C library on Linux. */
export interface Machine {
  os: string;
  cpu: string;
  musl: boolean;
}

/**
 * The release target name for a machine (`linux-x64`, `linux-x64-musl`, `windows-x64`, …): the
 * same names as script/build.ts's RELEASE_TARGETS, which the release script checks.
 */
export function targetName(machine: Machine): string {
  const os = machine.os === "win32" ? "windows" : machine.os;
  return `${os}-${machine.cpu}${machine.musl ? "-musl" : ""}`;
}

export function platformPackageName(target: string): string {
  return `${MAIN_PACKAGE}-${target}`;
}

/** Where the executable sits inside its platform package. */
export function binaryPathInPackage(os: string): string {
  return os === "win32" ? "bin/skill-central.exe" : "bin/skill-central";
}

/**
 * Whether this Linux runs on musl (Alpine) rather than glibc. Node and Bun both put the glibc
 * version in the diagnostic report's header, and leave it out on musl; where no report is
 * available, the musl dynamic loader's presence decides.
 */
export function isMusl(os: string = process.platform): boolean {
  if (os !== "linux") return false;
  try {
    const report = process.report?.getReport() as unknown;
    const header = (typeof report === "string" ? JSON.parse(report) : report) as
      | { header?: { glibcVersionRuntime?: string } }
      | undefined;
    if (header?.header) return !header.header.glibcVersionRuntime;
  } catch {
    // No usable report: fall through to the file system.
  }
  try {
    return readdirSync("/lib").some((name) => name.startsWith("ld-musl-"));
  } catch {
    return false;
  }
}

export function thisMachine(): Machine {
  return { os: process.platform, cpu: process.arch, musl: isMusl() };
}
