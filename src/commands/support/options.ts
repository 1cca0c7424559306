/**
 * Each option is declared once: its name (the key), type, parser, default and help line. From
 * the declarations come parseArgs' config, the `--help` lines and the typed values a command reads.
 */
import type { ParseArgsOptionsConfig } from "node:util";
import { publicUrlProblem } from "../../config/http-settings.ts";
import { didYouMean } from "../../suggest.ts";

/** Bad input from the command line: one line on stderr, exit status 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Turns the text after a flag into the value a command reads; a bad value throws a UsageError. */
type Parse<T> = (raw: string, flag: string) => T;

interface Common {
  help: string;
  short?: string;
  /** Shown after the flag in `--help`: `<n>`, `prompt|tool`, `name=value`. */
  value?: string;
}

/** `--name`; a negatable one is on unless `--no-name`, and `--help` shows only that form. */
interface Flag extends Common {
  kind: "flag";
  negatable?: boolean;
}

interface Value<T> extends Common {
  kind: "value";
  parse: Parse<T>;
  default?: T;
}

/** A repeatable text: every occurrence, in order. */
interface List extends Common {
  kind: "list";
}

type Option = Flag | Value<unknown> | List;
export type Options = Readonly<Record<string, Option>>;

type ValueOf<O> = O extends Flag
  ? boolean
  : O extends List
    ? string[]
    : O extends Value<infer T>
      ? O extends { default: unknown }
        ? T
        : T | undefined
      : never;

/** What a command reads: a boolean for a flag, a list for a repeatable, else the parsed value or its default. */
export type Values<O extends Options> = { readonly [K in keyof O]: ValueOf<O[K]> };

type Extra<T> = { short?: string; default?: T };

export function flag(help: string, extra: { short?: string; negatable?: boolean; value?: string } = {}): Flag {
  return { kind: "flag", help, ...extra };
}

/** `extra.default` makes the value's type `T` rather than `T | undefined`. */
export function value<T, const E extends Extra<T> = Record<never, never>>(
  placeholder: string,
  help: string,
  parse: Parse<T>,
  extra?: E,
) {
  return { kind: "value", value: placeholder, help, parse, ...extra } as Value<T> & E;
}

export const text = (placeholder: string, help: string) => value(placeholder, help, (raw) => raw);

/**
 * An absolute http(s) URL: https, or http for a loopback host; no credentials, query or fragment.
 * The rule is the config's (`http.publicUrl`), so the flag and the file accept the same URLs.
 */
export function httpUrl(placeholder: string, help: string) {
  return value(placeholder, help, (raw, flag) => {
    const problem = publicUrlProblem(raw.trim());
    if (problem !== undefined) throw new UsageError(`${flag}: ${problem}`);
    return raw.trim();
  });
}

export function list(placeholder: string, help: string): List {
  return { kind: "list", value: placeholder, help };
}

function whole(min: number, max: number, what: string): Parse<number> {
  return (raw, flag) => {
    const n = Number(raw);
    if (/^\d+$/.test(raw) && Number.isSafeInteger(n) && n >= min && n <= max) return n;
    throw new UsageError(`${flag} must be ${what}, not "${raw}"`);
  };
}

export function positiveInt<const E extends Extra<number> = Record<never, never>>(
  placeholder: string,
  help: string,
  extra?: E,
) {
  return value(placeholder, help, whole(1, Number.MAX_SAFE_INTEGER, "a positive whole number"), extra);
}

export function wholeNumber(min: number, max: number, placeholder: string, help: string) {
  return value(placeholder, help, whole(min, max, `a whole number from ${min} to ${max}`));
}

/**
 * One of `choices`; `--help` shows them as `a|b`. The message names them `"a" or "b"` when
 * `quoted`, else `a, b or c`, and suggests the nearest one.
 */
export function choice<const C extends string, const E extends Extra<C> & { quoted?: boolean } = Record<never, never>>(
  choices: readonly C[],
  help: string,
  extra?: E,
) {
  const names = choices.map((c) => (extra?.quoted ? `"${c}"` : c));
  const named = `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
  const parse: Parse<C> = (raw, flag) => {
    const found = choices.find((c) => c === raw);
    if (found === undefined) throw new UsageError(`${flag} must be ${named}, not "${raw}"${didYouMean(raw, choices)}`);
    return found;
  };
  return value(choices.join("|"), help, parse, extra);
}

export function parseArgsConfig(options: Options): ParseArgsOptionsConfig {
  const config: ParseArgsOptionsConfig = {};
  for (const [name, option] of Object.entries(options)) {
    config[name] = {
      type: option.kind === "flag" ? "boolean" : "string",
      ...(option.short !== undefined && { short: option.short }),
      ...(option.kind === "list" && { multiple: true }),
    };
  }
  return config;
}

/** The options' lines for `--help`, in declaration order, their help texts aligned. */
export function optionHelp(options: Options): string {
  const lines = Object.entries(options).map(([name, option]) => {
    const short = option.short !== undefined ? `-${option.short}, ` : "";
    const long = option.kind === "flag" && option.negatable ? `--no-${name}` : `--${name}`;
    return [`${short}${long}${option.value !== undefined ? ` ${option.value}` : ""}`, option.help] as const;
  });
  const width = Math.max(...lines.map(([label]) => label.length));
  return lines.map(([label, help]) => `  ${label.padEnd(width)}  ${help}\n`).join("");
}

/** Every spelling an unknown flag may have meant: `--name`, and `--no-name` for negatable flags. */
export function flagNames(options: Options): string[] {
  return Object.entries(options).flatMap(([name, option]) =>
    option.kind === "flag" && option.negatable ? [`--${name}`, `--no-${name}`] : [`--${name}`],
  );
}

export type RawValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

/**
 * The typed values of parseArgs' output. Each is parsed when the command first reads it, so a
 * command meets bad values in the order it checks them, its own checks included.
 */
export function readValues<O extends Options>(options: O, raw: RawValues): Values<O> {
  const values = {};
  for (const [name, option] of Object.entries(options)) {
    let read: { value: unknown } | undefined;
    const get = () => {
      read ??= { value: parseValue(option, `--${name}`, raw[name]) };
      return read.value;
    };
    Object.defineProperty(values, name, { enumerable: true, get });
  }
  return values as Values<O>;
}

/**
 * `${user_config.KEY}` left as written: an MCP Bundle host (Claude Desktop) puts the user's value
 * for KEY there, and leaves the text as it is when an optional setting was left empty.
 */
const UNFILLED_BUNDLE_SETTING = /^\$\{user_config\.[^}]*\}$/;

/** An option value a bundle host did not fill in: read as if the option were not given. */
export function isUnfilledBundleSetting(raw: string): boolean {
  return UNFILLED_BUNDLE_SETTING.test(raw);
}

/** The options given on the command line, leaving out those whose only values a bundle host left unfilled. */
export function givenOptions(raw: RawValues): Set<string> {
  const filled = (v: string | boolean) => typeof v !== "string" || !isUnfilledBundleSetting(v);
  return new Set(
    Object.entries(raw)
      .filter(([, v]) => v !== undefined && (Array.isArray(v) ? v.some(filled) : filled(v)))
      .map(([name]) => name),
  );
}

function parseValue(option: Option, flag: string, raw: RawValues[string]): unknown {
  if (option.kind === "flag") return raw === undefined ? option.negatable === true : raw === true;
  if (option.kind === "list")
    return Array.isArray(raw) ? raw.map(String).filter((item) => !isUnfilledBundleSetting(item)) : [];
  return raw === undefined || isUnfilledBundleSetting(String(raw)) ? option.default : option.parse(String(raw), flag);
}
