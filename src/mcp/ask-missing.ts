/**
 * Asking a person, through the client, for the required arguments a `prompts/get` or
 * `tools/call` left out (docs/protocol.md), then answering as if the client had sent them.
 * 2025-11-25 connections get `elicitation/create` during the request; 2026-07-28 requests get
 * an `input_required` result whose signed `requestState` carries the round to the retry. A
 * client that did not declare form elicitation gets today's answer, untouched.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  PROTOCOL_VERSION_META_KEY,
  type ElicitRequestFormParams,
  type Result,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { FormField } from "../skill/form-fields.ts";
import { mintState, verifyState, type AskState } from "./request-state.ts";
import type { RegistrySource, ServedElicitation } from "./registry-source.ts";

/** What one request would ask for, and how it ends, built by the prompt or tool that knows its arguments. */
export interface MissingArguments<R> {
  method: "prompts/get" | "tools/call";
  /** The prompt or tool asked for: a state is good for a retry of the same target only. */
  target: string;
  /** The required arguments this request left out: the first form asks for these. */
  missing: readonly string[];
  /**
   * A form field for every required argument that can be asked for, by name: a retry's form
   * asks again for what its first round asked, even where the retry re-sent a value.
   */
  fields: Readonly<Record<string, FormField>>;
  /** The form's first line. */
  message: string;
  /**
   * The request with `values` (the answers for `asked`) added, every value of it validated as
   * any argument is: its answer, or the problems with the answers.
   */
  attempt(values: Record<string, unknown>, asked: readonly string[]): Promise<{ answer: R } | { problems: string[] }>;
  /** Today's answer to the request as sent, with `reason` added in words. */
  refuse(reason: string): Promise<R>;
}

/** The one input request a round carries. */
const INPUT_KEY = "arguments";
/** A person fills in a form: the protocol's 60-second default would cut them off. */
const ANSWER_TIMEOUT_MS = 600_000;

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Declared form elicitation: `elicitation: {}` (form by default) or with `form`. */
export function declaresFormElicitation(capabilities: unknown): boolean {
  const elicitation = asObject(asObject(capabilities)?.elicitation);
  if (elicitation === undefined) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** A 2025-11-25 session whose `initialize` declared form elicitation, while asking is on: its requests may ask. */
export function mayBeAsked(source: RegistrySource, initialize: unknown): boolean {
  const params = asObject(asObject(initialize)?.params);
  return source.elicitation().mode !== "off" && declaresFormElicitation(params?.capabilities);
}

function isModern(ctx: ServerContext): boolean {
  return asObject(ctx.mcpReq.envelope)?.[PROTOCOL_VERSION_META_KEY] !== undefined;
}

/** The client can be asked during this request (stateless 2025-11-25 requests never: their server never saw `initialize`). */
function canAsk(server: Server, ctx: ServerContext): boolean {
  const capabilities = isModern(ctx)
    ? asObject(ctx.mcpReq.envelope)?.[CLIENT_CAPABILITIES_META_KEY]
    : server.getClientCapabilities();
  return declaresFormElicitation(capabilities);
}

function form<R>(
  ask: MissingArguments<R>,
  names: readonly string[],
  problems?: readonly string[],
): ElicitRequestFormParams {
  const properties: Record<string, FormField> = {};
  for (const name of names) properties[name] = ask.fields[name]!;
  const message =
    problems === undefined
      ? ask.message
      : `${ask.message}\nWhat was entered is not valid:\n${problems.join("\n")}\nPlease correct it.`;
  return { mode: "form", message, requestedSchema: { type: "object", properties, required: [...names] } };
}

/** The accepted values of the names asked for; nothing else the client sent. */
function picked(content: Record<string, unknown> | undefined, names: readonly string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const name of names) if (content && Object.hasOwn(content, name)) values[name] = content[name];
  return values;
}

/**
 * `ask` with `noted` told when the person declines or cancels the form (a use that ends
 * "declined" in the usage history); undefined stays undefined.
 */
export function declinesNoted<R>(
  ask: MissingArguments<R> | undefined,
  noted: () => void,
): MissingArguments<R> | undefined {
  if (ask === undefined) return undefined;
  return {
    ...ask,
    refuse: (reason) => {
      if (reason === DECLINED || reason === CANCELLED) noted();
      return ask.refuse(reason);
    },
  };
}

/** A blank answer fills nothing in: a client may send "" for a field the person left alone. */
function blankAnswers(values: Record<string, unknown>, names: readonly string[]): string[] {
  return names
    .filter((name) => typeof values[name] === "string" && values[name].trim() === "")
    .map((name) => `Argument "${name}" must not be empty`);
}

const DECLINED = "the user declined to fill in the form for it";
const CANCELLED = "the user cancelled the form for it";
const NO_ANSWER = "the retry carried no answer to the form";
const invalidTwice = (problems: readonly string[]) => `asked twice, and still not valid: ${problems.join("; ")}`;
/** A form is asked again once after invalid values; the SDK's own cap on rounds is higher. */
const LAST_ROUND = 2;

type Answer = { action: string; content?: Record<string, unknown> };

/**
 * One round's answer judged, in either era: the request's answer, today's refusal with why, or
 * the problems to ask again with (before the last round).
 */
async function judged<R>(
  ask: MissingArguments<R>,
  names: readonly string[],
  round: number,
  answer: Answer | undefined,
): Promise<{ done: R } | { again: string[] }> {
  if (answer === undefined) return { done: await ask.refuse(NO_ANSWER) };
  if (answer.action !== "accept") return { done: await ask.refuse(answer.action === "decline" ? DECLINED : CANCELLED) };
  const values = picked(answer.content, names);
  const blank = blankAnswers(values, names);
  const outcome = blank.length > 0 ? { problems: blank } : await ask.attempt(values, names);
  if ("answer" in outcome) return { done: outcome.answer };
  if (round >= LAST_ROUND) return { done: await ask.refuse(invalidTwice(outcome.problems)) };
  return { again: outcome.problems };
}

/**
 * The answer to a request, asking first when `ask` has missing arguments and the client can be
 * asked. `today` is the request's answer as it was before any asking; it is all a client without
 * the capability (or with asking turned off) ever gets.
 */
export function withMissingAsked<R>(
  server: Server,
  ctx: ServerContext,
  settings: ServedElicitation,
  ask: MissingArguments<R> | undefined,
  today: () => R | Promise<R>,
): R | Promise<R | Result> {
  // The common request is complete: answered as before, without an extra turn of the event loop.
  if (ask === undefined) return today();
  const state = ctx.mcpReq.requestState();
  if (state !== undefined && isModern(ctx)) return retried(ctx, settings, ask, state);
  if (settings.mode === "off" || !canAsk(server, ctx)) return today();
  const names = ask.missing;
  if (isModern(ctx))
    return askAgainLater(ask, settings, { method: ask.method, target: ask.target, round: 1, names: [...names] });
  return askNow(ctx, ask, names);
}

async function askAgainLater<R>(
  ask: MissingArguments<R>,
  settings: ServedElicitation,
  state: AskState,
  problems?: string[],
) {
  return inputRequired({
    inputRequests: { [INPUT_KEY]: inputRequired.elicit(form(ask, state.names, problems)) },
    requestState: await mintState(state, settings.stateKey),
  });
}

/** A 2026-07-28 retry: its state verified, the answer read from `inputResponses`. */
async function retried<R>(
  ctx: ServerContext,
  settings: ServedElicitation,
  ask: MissingArguments<R>,
  raw: unknown,
): Promise<R | Result> {
  const state = await verifyState(raw, ctx, ask.method, ask.target, settings.stateKey);
  // A reload between the rounds may have changed the skill: what was asked must still be askable.
  if (!state.names.every((name) => Object.hasOwn(ask.fields, name)))
    return ask.refuse("the skill changed while the form was out");
  const response = inputResponse(ctx.mcpReq.inputResponses, INPUT_KEY);
  const step = await judged(ask, state.names, state.round, response.kind === "elicit" ? response : undefined);
  if ("done" in step) return step.done;
  return askAgainLater(ask, settings, { ...state, round: state.round + 1 }, step.again);
}

/** A 2025-11-25 connection: `elicitation/create` while the request waits, asked again after invalid values. */
async function askNow<R>(ctx: ServerContext, ask: MissingArguments<R>, names: readonly string[]): Promise<R> {
  let problems: string[] | undefined;
  for (let round = 1; ; round++) {
    let answer: Answer;
    try {
      answer = await ctx.mcpReq.send(
        { method: "elicitation/create", params: form(ask, names, problems) },
        { timeout: ANSWER_TIMEOUT_MS },
      );
    } catch (error) {
      return ask.refuse(`no answer to the form: ${error instanceof Error ? error.message : String(error)}`);
    }
    const step = await judged(ask, names, round, answer);
    if ("done" in step) return step.done;
    problems = step.again;
  }
}
