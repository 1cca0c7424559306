import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stringify } from "yaml";
import type { Random } from "./random.ts";
import { PROTO_KEYS, randomJson, randomString, setKey } from "./values.ts";

/** One generated file of a layer. */
export interface SkillFile {
  /** Inside the layer folder, `/`-separated. */
  path: string;
  content: string | Uint8Array;
  /** What was generated and how it was broken, for a failure report. */
  label: string;
}

/** A valid skill the broken files around it must not stop: it is listed and answers this call exactly. */
export interface Sentinel {
  id: string;
  kind: "prompt" | "tool";
  file: SkillFile;
  method: "prompts/get" | "tools/call";
  params: Record<string, unknown>;
  text: string;
  /** The text must start with `text` (the rest depends on where the layer is). */
  textIsPrefix?: boolean;
}

/** Skills that must never be served: ignored names, files reachable only through links out of the layer, and files inside a skill folder. */
export const NEVER_SERVED = ["never-ignored", "never-outside", "not-a-skill", "nested"];

export function sentinels(): Sentinel[] {
  return [
    {
      id: "sentinel-prompt",
      kind: "prompt",
      file: {
        path: "sentinel-prompt.yaml",
        label: "sentinel",
        content:
          "id: sentinel-prompt\ndescription: A valid prompt among broken files\ntype: prompt\ntags: [fuzz, sentinel]\narguments:\n  - { name: topic, required: true }\n  - { name: tone, enum: [calm, loud] }\nprompt: 'Write about {{topic}}{{#if tone}} in a {{tone}} tone{{/if}}.'\n",
      },
      method: "prompts/get",
      params: { name: "sentinel-prompt", arguments: { topic: "fuzz", tone: "calm" } },
      text: "Write about fuzz in a calm tone.",
    },
    {
      id: "sentinel-tool",
      kind: "tool",
      file: {
        path: "tools/sentinel-tool.yaml",
        label: "sentinel",
        content:
          "id: sentinel-tool\ndescription: A valid tool among broken files\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    word: { type: string, pattern: '^[a-z]+$' }\n    count: { type: integer, minimum: 1 }\n  required: [word]\nprompt: '{{word}} x{{count}}'\n",
      },
      method: "tools/call",
      params: { name: "sentinel-tool", arguments: { word: "hello", count: 3 } },
      text: "hello x3",
    },
    {
      id: "sentinel-echo",
      kind: "tool",
      file: {
        path: "sentinel-echo.json",
        label: "sentinel",
        content: JSON.stringify({
          id: "sentinel-echo",
          description: "Echoes its arguments",
          type: "tool",
          inputSchema: { type: "object" },
        }),
      },
      method: "tools/call",
      params: { name: "sentinel-echo", arguments: { n: 1 } },
      text: '{\n  "n": 1\n}',
    },
    {
      id: "sentinel-md",
      kind: "prompt",
      file: {
        path: "sentinel-md/SKILL.md",
        label: "sentinel",
        content:
          "---\nname: sentinel-md\ndescription: A valid Agent Skills folder among broken files\n---\nHello $ARGUMENTS from ${CLAUDE_SKILL_DIR}/../x {{not handlebars}}\n",
      },
      method: "prompts/get",
      params: { name: "sentinel-md", arguments: { arguments: "fuzz" } },
      // The text names the layer's folder, which differs per session: only its start is compared.
      text: "Hello fuzz from ",
      textIsPrefix: true,
    },
    {
      id: "sentinel-deep",
      kind: "prompt",
      file: {
        path: "a/b/c/sentinel-deep.yml",
        label: "sentinel",
        content: 'id: sentinel-deep\ndescription: Deep in the layer\ntype: prompt\nprompt: "Deep {{a}}"\n',
      },
      method: "prompts/get",
      params: { name: "sentinel-deep", arguments: { a: "b" } },
      text: "Deep b",
    },
  ];
}

/** Values inside skill files: deeper nesting comes from the raw fragments and mutations below. */
const FILE_JSON = { maxLevels: 100 } as const;

// ---------------------------------------------------------------------------------------------
// Raw JSON fragments: values too deep for a serialiser's recursion are written as text.

const RAW = "__RAW_FRAGMENT_";
interface RawFragments {
  texts: string[];
}

function raw(fragments: RawFragments, text: string): string {
  fragments.texts.push(text);
  return `${RAW}${fragments.texts.length - 1}__`;
}

function deepText(levels: number, wrap: (inner: string) => string, leaf: string): string {
  // Built by joining, not by repeated wrapping: thousands of levels stay linear.
  const [open, close] = wrap("\u0000").split("\u0000") as [string, string];
  return open.repeat(levels) + leaf + close.repeat(levels);
}

// ---------------------------------------------------------------------------------------------
// Templates

const TEMPLATE_PIECES = [
  "Hello {{name}}.",
  "{{a.b.c}}",
  "{{#if flag}}yes{{else}}no{{/if}}",
  "{{#unless flag}}off{{/unless}}",
  "{{#each items}}[{{this}}]{{/each}}",
  "{{#each items}}{{@index}}:{{../name}} {{/each}}",
  "{{#each obj}}{{@key}}={{this}};{{/each}}",
  "{{#with obj}}{{x}}{{/with}}",
  "{{this}}",
  "{{.}}",
  "{{{name}}}",
  "{{~name~}}",
  "{{!-- a comment with }} inside --}}",
  "{{! short comment }}",
  "\\{{escaped}}",
  "{{[weird key]}}",
  "{{@root.name}}",
  "{{#each items as |item i|}}{{item}}{{i}}{{/each}}",
  "{{^flag}}inverse{{/flag}}",
  "{{#flag}}section{{/flag}}",
  "{{constructor}}",
  "{{__proto__}}",
  "{{toString}}",
  "{{constructor.constructor}}",
  "{{#each items}}{{#each ../items}}{{#each ../../items}}x{{/each}}{{/each}}{{/each}}",
  "{{#if a}}{{#if b}}{{#if c}}{{d}}{{/if}}{{/if}}{{/if}}",
  "plain text with no tags",
  'JSON-ish {"k": {{v}}}',
];

const BROKEN_TEMPLATES = [
  "{{#if a}}never closed",
  "{{#each items}}x{{/if}}",
  "{{> partial}}",
  "{{#> layout}}body{{/layout}}",
  "{{lookup obj 'x'}}",
  "{{log 'to stdout?'}}",
  "{{helperMissing}}",
  "{{blockHelperMissing x}}",
  "{{#if (eq a b)}}x{{/if}}",
  "{{{{raw}}}} {{x}} {{{{/raw}}}}",
  "{{",
  "}}",
  "{{a",
  "{{#if}}{{/if}}",
  "{{#each a b}}{{/each}}",
  "{{else}}",
  "{{/each}}",
  "{{#with}}x{{/with}}",
  "{{a.[}}",
  "{{#if a}}{{else}}{{else}}{{/if}}",
  '{{#*inline "p"}}x{{/inline}}',
  "{{foo bar=baz}}",
];

function randomTemplate(rng: Random): string {
  const kind = rng.weighted<string>([
    [40, "pieces"],
    [25, "broken"],
    [5, "nested"],
    [4, "many"],
    [3, "huge"],
    [5, "random"],
  ]);
  switch (kind) {
    case "pieces":
      return Array.from({ length: rng.range(1, 4) }, () => rng.pick(TEMPLATE_PIECES)).join(rng.pick([" ", "\n", ""]));
    case "broken":
      return `${rng.pick(TEMPLATE_PIECES)} ${rng.pick(BROKEN_TEMPLATES)}`;
    case "nested": {
      const levels = rng.pick([10, 100, 1000]);
      const block = rng.pick(["if", "each", "with", "unless"]);
      const open = `{{#${block} a}}`;
      const close = `{{/${block}}}`;
      return `${open.repeat(levels)}{{x}}${close.repeat(levels)}`;
    }
    case "many":
      return Array.from({ length: 5000 }, (_, i) => `{{v${i % 50}}}`).join(" ");
    case "huge":
      return `${"word ".repeat(rng.pick([50_000, 250_000]))}{{x}}`;
    default:
      return randomString(rng, { huge: false });
  }
}

// ---------------------------------------------------------------------------------------------
// Input schemas

const CATASTROPHIC_PATTERNS = [
  "^(a+)+$",
  "(x+x+)+y",
  "^(\\w+\\s?)*$",
  "(a|aa)+$",
  "^(a|a?)+$",
  "(.*a){12}",
  "^(([a-z])+.)+[A-Z]([a-z])+$",
  "^(ab|a)*c$",
  "^(0|0?)+x$",
];
const INVALID_PATTERNS = ["[", "(", "a{2,1}", "\\", "(?<n>a)\\k<m>", "\\p{Nope}", "*", "(?<=", "[z-a]"];
const ODD_PATTERNS = [
  "\\p{L}+",
  "(?<=a)b",
  "(a)\\1",
  "^\\u{1F600}$",
  "[\\s\\S]{0,100000}",
  "^$",
  ".",
  "^[a-z]+(-[a-z]+)*$",
  "\\d{3}",
];

function randomPattern(rng: Random): unknown {
  return rng.weighted<unknown>([
    [4, rng.pick(CATASTROPHIC_PATTERNS)],
    [3, rng.pick(INVALID_PATTERNS)],
    [4, rng.pick(ODD_PATTERNS)],
    [1, "a".repeat(rng.pick([100, 10_000]))],
    [1, rng.pick([5, null, ["a"], { a: 1 }])],
  ]);
}

const TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];

function leafSchema(rng: Random): Record<string, unknown> {
  const type = rng.chance(0.9) ? rng.pick(TYPES) : rng.pick<unknown>(["strin", 5, [], ["string", "null"], null, "any"]);
  const schema: Record<string, unknown> = { type };
  if (type === "string") {
    if (rng.chance(0.4)) schema.pattern = randomPattern(rng);
    if (rng.chance(0.2)) schema.minLength = rng.pick([0, 1, -1, 1e308, "3"]);
    if (rng.chance(0.2)) schema.maxLength = rng.pick([0, 5, 1e9]);
    if (rng.chance(0.2)) schema.format = rng.pick(["email", "uri", "date-time", "regex", "uuid", "nope", 5]);
    if (rng.chance(0.2))
      schema.enum = rng.chance(0.8) ? ["a", "b", "calm"] : Array.from({ length: 10_000 }, (_, i) => `e${i}`);
  } else if (type === "number" || type === "integer") {
    if (rng.chance(0.3)) schema.minimum = rng.pick([0, -1e308, "x", 1.5]);
    if (rng.chance(0.3)) schema.multipleOf = rng.pick([0, 1e-300, 2, -1, 0.1]);
    if (rng.chance(0.2)) schema.exclusiveMaximum = rng.pick([true, 10, null]);
  } else if (type === "array") {
    if (rng.chance(0.6)) schema.items = rng.chance(0.8) ? leafSchema(rng) : rng.pick<unknown>([true, false, [], "x"]);
    if (rng.chance(0.2)) schema.uniqueItems = rng.pick([true, false, "yes"]);
    if (rng.chance(0.2)) schema.maxItems = rng.pick([0, 1e300, -5]);
    if (rng.chance(0.1)) schema.contains = leafSchema(rng);
    if (rng.chance(0.1)) schema.prefixItems = [leafSchema(rng), leafSchema(rng)];
  }
  if (rng.chance(0.05)) schema.const = randomJson(rng, 2, { ...FILE_JSON, huge: false });
  if (rng.chance(0.05)) schema.default = randomJson(rng, 2, { ...FILE_JSON, huge: false });
  return schema;
}

function objectSchema(rng: Random, depth: number): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: rng.chance(0.95) ? "object" : rng.pick<unknown>(["array", 5, null]) };
  const properties: Record<string, unknown> = {};
  const names: string[] = [];
  for (let i = rng.size(6); i > 0; i--) {
    const name = rng.weighted<string>([
      [6, rng.pick(["s", "n", "items", "flag", "name", "obj", "a", "word", "count", "tags"])],
      [2, rng.pick(PROTO_KEYS)],
      [1, rng.pick(["", "with space", "ü", "a.b", "{{x}}"])],
    ]);
    names.push(name);
    setKey(properties, name, depth > 0 && rng.chance(0.25) ? objectSchema(rng, depth - 1) : leafSchema(rng));
  }
  schema.properties = rng.chance(0.95) ? properties : rng.pick<unknown>([[], "props", 5]);
  if (rng.chance(0.4))
    schema.required = rng.chance(0.85)
      ? names.filter(() => rng.chance(0.5))
      : rng.pick<unknown>(["s", [1, 2], [null], ["missing"]]);
  if (rng.chance(0.2)) schema.additionalProperties = rng.pick<unknown>([false, true, { type: "string" }, "no"]);
  if (rng.chance(0.1))
    schema.patternProperties = {
      [String(rng.pick([...CATASTROPHIC_PATTERNS, ...INVALID_PATTERNS, "^x"]))]: leafSchema(rng),
    };
  if (rng.chance(0.08)) schema.propertyNames = { pattern: randomPattern(rng) };
  if (rng.chance(0.05)) schema.dependentRequired = { s: ["n"] };
  if (rng.chance(0.05)) schema.dependentSchemas = { s: { required: ["n"] } };
  if (rng.chance(0.05)) schema.unevaluatedProperties = false;
  if (rng.chance(0.08))
    Object.assign(schema, {
      if: { properties: { flag: { const: true } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords, not a thenable.
      then: { required: ["s"] },
      else: { not: { required: ["s"] } },
    });
  if (rng.chance(0.08))
    schema[rng.pick(["allOf", "anyOf", "oneOf"])] = Array.from({ length: rng.range(1, 4) }, () =>
      rng.chance(0.5) ? leafSchema(rng) : { required: [rng.pick(names.length > 0 ? names : ["s"])] },
    );
  if (rng.chance(0.05)) schema.not = leafSchema(rng);
  if (rng.chance(0.05))
    schema[rng.pick(["nope", "$comment", "title", "description", "examples", "x-extension"])] = randomJson(rng, 1, {
      ...FILE_JSON,
      huge: false,
    });
  return schema;
}

/** A tool's inputSchema, from ordinary to hostile. */
function randomSchema(rng: Random, fragments: RawFragments): unknown {
  const kind = rng.weighted<string>([
    [40, "object"],
    [6, "deep-allof"],
    [4, "deep-properties"],
    [8, "ref"],
    [6, "catastrophic"],
    [4, "wrong"],
    [2, "huge"],
  ]);
  switch (kind) {
    case "object":
      return objectSchema(rng, 2);
    case "deep-allof": {
      const levels = rng.pick([30, 63, 65, 200, 3000]);
      return raw(
        fragments,
        deepText(levels, (inner) => `{"allOf":[${inner}]}`, '{"type":"object"}'),
      );
    }
    case "deep-properties": {
      const levels = rng.pick([20, 40, 70, 1000]);
      return raw(
        fragments,
        `{"type":"object","properties":${deepText(levels, (inner) => `{"p":{"type":"object","properties":${inner}}}`, "{}")}}`,
      );
    }
    case "ref":
      return rng.pick<unknown>([
        { type: "object", $ref: "#" },
        {
          type: "object",
          properties: { a: { $ref: "#/$defs/a" } },
          $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } },
        },
        { type: "object", properties: { a: { $ref: "#/$defs/nope" } } },
        { type: "object", properties: { a: { $ref: "http://127.0.0.1:1/schema.json" } } },
        { type: "object", properties: { children: { type: "array", items: { $ref: "#" } } } },
        { type: "object", properties: { a: { $ref: "#/properties/b" }, b: { type: "string" } } },
        { type: "object", properties: { a: { $ref: "#/properties/a" } } },
        { type: "object", $defs: { x: { $ref: "#/$defs/x/properties/y" } }, properties: { a: { $ref: "#/$defs/x" } } },
        { type: "object", properties: { a: { $dynamicRef: "#meta" } }, $dynamicAnchor: "meta" },
        { type: "object", properties: { a: { $ref: "#/$defs/a~1b" } }, $defs: { "a/b": { type: "string" } } },
        { type: "object", properties: { a: { $ref: 5 } } },
      ]);
    case "catastrophic":
      return {
        type: "object",
        properties: {
          s: { type: "string", pattern: rng.pick(CATASTROPHIC_PATTERNS) },
          items: { type: "array", items: { type: "string", pattern: rng.pick(CATASTROPHIC_PATTERNS) } },
        },
        ...(rng.chance(0.5) && { patternProperties: { [rng.pick(CATASTROPHIC_PATTERNS)]: { type: "string" } } }),
      };
    case "wrong":
      return rng.pick<unknown>([
        null,
        "object",
        5,
        [],
        { type: "string" },
        { type: "object", properties: null },
        true,
        {},
      ]);
    default: {
      const properties: Record<string, unknown> = {};
      for (let i = 0; i < rng.pick([1000, 20_000]); i++) properties[`p${i}`] = { type: "string" };
      return { type: "object", properties };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Whole skills

function randomId(rng: Random, n: number): unknown {
  return rng.weighted<unknown>([
    [90, `h${n}`],
    [2, `H${n}!`],
    [1, ""],
    [1, n],
    [1, `h-${"x".repeat(70)}`],
    [1, `h${n}--x`],
    [1, ["h"]],
    [1, null],
  ]);
}

/** The skill as data, before it is written out (and perhaps broken). */
function randomSkillData(rng: Random, n: number, fragments: RawFragments): Record<string, unknown> {
  const type = rng.weighted<unknown>([
    [48, "prompt"],
    [48, "tool"],
    [2, "resource"],
    [1, ["tool"]],
    [1, undefined],
  ]);
  const skill: Record<string, unknown> = {};
  // Never a sentinel's id: a second file with it would withdraw both (a conflict inside a layer),
  // which is the documented rule, not a failure to serve.
  if (rng.chance(0.98)) skill.id = randomId(rng, n);
  if (rng.chance(0.97)) skill.description = rng.chance(0.9) ? `Fuzz skill ${n}` : randomJson(rng, 1, FILE_JSON);
  if (type !== undefined) skill.type = type;
  if (rng.chance(0.3)) skill.name = rng.chance(0.8) ? `Fuzz ${n}` : randomJson(rng, 1, FILE_JSON);
  if (rng.chance(0.2)) skill.version = rng.pick<unknown>(["1.0.0", 1, null, "x"]);
  if (rng.chance(0.4))
    skill.tags = rng.chance(0.8)
      ? Array.from({ length: rng.size(5) }, () => rng.pick(["kmp", "fuzz", "Android", "a b", "", "ü", "x".repeat(100)]))
      : randomJson(rng, 1, FILE_JSON);
  if (type === "prompt" && rng.chance(0.5)) {
    skill.arguments = rng.chance(0.85)
      ? Array.from({ length: rng.size(4) }, () => {
          const argument: Record<string, unknown> = {
            name: rng.weighted<unknown>([
              [8, rng.pick(["name", "items", "flag", "topic", "x"])],
              [2, rng.pick(PROTO_KEYS)],
              [1, rng.pick(["", "1a", "a b", 5, null])],
            ]),
          };
          if (rng.chance(0.4)) argument.required = rng.pick<unknown>([true, false, "yes", 1]);
          if (rng.chance(0.3)) argument.enum = rng.chance(0.8) ? ["a", "b", "calm"] : randomJson(rng, 1, FILE_JSON);
          if (rng.chance(0.3)) argument.description = randomString(rng, { huge: false });
          if (rng.chance(0.1)) argument[rng.pick(["nope", "default", "type"])] = randomJson(rng, 1, FILE_JSON);
          return argument;
        })
      : randomJson(rng, 2, FILE_JSON);
  }
  if (rng.chance(type === "prompt" ? 0.95 : 0.5))
    skill.prompt = rng.chance(0.95) ? randomTemplate(rng) : randomJson(rng, 1, FILE_JSON);
  if (type === "tool" || rng.chance(0.05)) {
    if (rng.chance(0.97)) skill.inputSchema = randomSchema(rng, fragments);
  }
  if (rng.chance(0.1)) {
    skill.examples = rng.chance(0.7)
      ? [
          { arguments: { name: "x" }, expect: "Hello x." },
          { arguments: {}, error: "missing" },
        ]
      : randomJson(rng, 2, FILE_JSON);
  }
  if (rng.chance(0.08))
    setKey(skill, rng.pick(["unknown", "descripton", "inputschema", "__proto__", "x"]), randomJson(rng, 1, FILE_JSON));
  return skill;
}

function serialise(rng: Random, data: Record<string, unknown>, fragments: RawFragments, asJson: boolean): string {
  let text: string;
  if (asJson) {
    text = JSON.stringify(data, null, rng.pick([0, 2]));
    return text.replace(new RegExp(`"${RAW}(\\d+)__"`, "g"), (_, i: string) => fragments.texts[Number(i)]!);
  }
  try {
    text = stringify(data, {
      lineWidth: rng.pick([0, 80]),
      defaultStringType: rng.pick(["PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE", "BLOCK_LITERAL"] as const),
      collectionStyle: rng.pick(["any", "block", "flow"] as const),
      indent: rng.pick([2, 4]),
    });
  } catch {
    text = JSON.stringify(data);
  }
  return text.replace(new RegExp(`["']?${RAW}(\\d+)__["']?`, "g"), (_, i: string) => fragments.texts[Number(i)]!);
}

// ---------------------------------------------------------------------------------------------
// Ways to break a written file

type Mutation = (rng: Random, text: string) => string | Uint8Array;

const ALIAS_BOMB = [
  "a: &a [x, x, x, x, x, x, x, x, x, x]",
  ...["b", "c", "d", "e", "f", "g", "h", "i"].map(
    (k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcdefghi"[i]}`).join(", ")}]`,
  ),
].join("\n");

const MUTATIONS: Record<string, Mutation> = {
  bytes(rng, text) {
    const bytes = Buffer.from(text);
    for (let i = rng.range(1, 6); i > 0 && bytes.length > 0; i--) bytes[rng.int(bytes.length)] = rng.int(256);
    return new Uint8Array(bytes);
  },
  insert(rng, text) {
    const at = rng.int(text.length + 1);
    return (
      text.slice(0, at) +
      rng.pick([
        ":",
        "- ",
        "{",
        "[",
        "'",
        '"',
        "\n  ",
        "\t",
        "#",
        "&a ",
        "*a",
        "!!binary ",
        "? ",
        "|",
        ">",
        "\u0000",
        "\ufeff",
        "%",
        "@",
        "`",
      ]) +
      text.slice(at)
    );
  },
  truncate(rng, text) {
    return text.slice(0, rng.int(text.length));
  },
  bom: (_, text) => `\ufeff${text}`,
  crlf: (_, text) => text.replace(/\n/g, "\r\n"),
  "lone-cr": (_, text) => text.replace(/\n/g, "\r"),
  tabs: (rng, text) =>
    rng.chance(0.5) ? text.replace(/^( {2})+/gm, (m) => "\t".repeat(m.length / 2)) : text.replace(/: /g, ":\t"),
  "duplicate-key": (rng, text) =>
    `${text}\n${rng.pick(["id: h-dup", "type: tool", "description: again", "prompt: again"])}\n`,
  anchors: (rng, text) =>
    rng.pick([
      `base: &base { type: tool, description: anchored }\n${text}\n<<: *base\n`,
      `${text}\nextra: &x [1, 2, 3]\nmore: *x\n`,
      `${text}\nbroken: *undefined_alias\n`,
      `${ALIAS_BOMB}\n${text}\n`,
      `${text}\nself: &s [*s]\n`,
    ]),
  tags: (rng, text) =>
    text.replace(
      /^(description|prompt|id|type): /m,
      (m) =>
        `${m}${rng.pick(["!!str ", "!!int ", "!!binary ", "!custom ", "!!set ", "!!omap ", "!!timestamp ", "!!float ", "!<tag:yaml.org,2002:str> ", "!!js/function "])}`,
    ),
  multidoc: (rng, text) =>
    rng.pick([`${text}\n---\n${text}`, `---\n${text}\n...\n`, `--- !!map\n${text}`, `${text}\n---\nid: second\n`]),
  directive: (rng, text) =>
    `${rng.pick(["%YAML 1.1", "%YAML 1.2", "%YAML 2.0", "%TAG ! tag:example.com,2000:", "%FOO bar"])}\n---\n${text}`,
  "complex-keys": (rng, text) =>
    `${text}\n${rng.pick(["? [a, b]\n: c", "? {a: 1}\n: d", "1: one", "null: nothing", "true: yes", "[x]: y", "? |\n  block key\n: v"])}\n`,
  "block-scalars": (rng, text) =>
    text.replace(
      /^prompt: .*$/m,
      `prompt: ${rng.pick(["|+", "|-", ">", ">-", "|2", "|9", "|0"])}\n  body {{x}}\n\n   indented\n`,
    ),
  "non-mapping": (rng) =>
    rng.pick([
      "",
      "# only a comment\n",
      "- a\n- b\n",
      "just text\n",
      "42\n",
      "null\n",
      "~\n",
      "[]\n",
      "{}\n",
      "---\n",
      "...\n",
    ]),
  "deep-flow": (rng, text) =>
    `${text}\nextra: ${"[".repeat(rng.pick([70, 1000, 20_000]))}${"]".repeat(rng.pick([0, 70, 1000, 20_000]))}\n`,
  "deep-block": (rng, text) => {
    const levels = rng.pick([70, 300, 2000]);
    let out = `${text}\nnested:\n`;
    for (let i = 1; i <= levels; i++) out += `${" ".repeat(i)}k${i}:\n`;
    return `${out}${" ".repeat(levels + 1)}leaf\n`;
  },
  huge: (rng, text) => `${text}\ndescription2: ${"x".repeat(rng.pick([100_000, 1024 * 1024 + 10]))}\n`,
  "long-line": (_, text) => `${text}\n# ${"#".repeat(200_000)}\n`,
  nul: (_, text) => text.replace(/\n/, "\n\u0000"),
  "wrong-type": (rng, text) =>
    text.replace(
      /^(id|type|description|prompt|inputSchema|arguments|tags): .*$/m,
      (_, key: string) => `${key}: ${rng.pick(["[1, 2]", "{a: 1}", "42", "null", "true", "~", "''"])}`,
    ),
  "many-keys": (rng, text) =>
    `${text}\n${Array.from({ length: rng.pick([1000, 20_000]) }, (_, i) => `k${i}: ${i}`).join("\n")}\n`,
  indentation: (rng, text) => text.replace(/\n/g, () => (rng.chance(0.1) ? `\n${" ".repeat(rng.range(1, 3))}` : "\n")),
};

/** A skill file: generated valid-looking, then broken in up to two ways. */
function hostileSkillFile(rng: Random, n: number): SkillFile {
  const fragments: RawFragments = { texts: [] };
  const data = randomSkillData(rng, n, fragments);
  const asJson = rng.chance(0.2);
  const text = serialise(rng, data, fragments, asJson);
  const applied: string[] = [];
  let content: string | Uint8Array = text;
  for (
    let i = rng.weighted([
      [45, 0],
      [40, 1],
      [15, 2],
    ]);
    i > 0;
    i--
  ) {
    const name = rng.pick(Object.keys(MUTATIONS));
    applied.push(name);
    const current: string = typeof content === "string" ? content : Buffer.from(content).toString("latin1");
    content = MUTATIONS[name]!(rng, current);
  }
  const folder = rng.weighted([
    [6, ""],
    [2, "sub/"],
    [1, "deep/er/still/"],
    [1, "ü space/"],
  ]);
  const extension = asJson ? ".json" : rng.pick([".yaml", ".yml"]);
  const path = `${folder}h${n}${extension}`;
  const label = `${String(data.type)} ${asJson ? "json" : "yaml"}${applied.length > 0 ? ` + ${applied.join(" + ")}` : ""}`;
  return { path, content, label };
}

// ---------------------------------------------------------------------------------------------
// Agent Skills folders (SKILL.md)

const BODY_PIECES = [
  "Do the thing with $ARGUMENTS.",
  "First: $0, second: $ARGUMENTS[1], missing: $ARGUMENTS[99].",
  "Read ${CLAUDE_SKILL_DIR}/references/guide.md first.",
  "Costs $10.00 and $5, or $1,000.",
  "Named: $topic and $focus and $undeclared.",
  "Run !`rm -rf /` before you start.",
  "Literal {{handlebars}} {{#each x}} stays {{/if}}.",
  "${CLAUDE_SESSION_ID} ${CLAUDE_EFFORT}",
  "```sh\necho $HOME $1\n```",
  "",
];

function frontmatterData(rng: Random, n: number): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (rng.chance(0.95))
    data.name = rng.weighted<unknown>([
      [90, `sm${n}`],
      [3, `Sm${n}`],
      [2, `sm-${"x".repeat(70)}`],
      [2, 5],
      [2, `other${n}`],
      [1, ""],
    ]);
  if (rng.chance(0.95))
    data.description = rng.weighted<unknown>([
      [85, `Fuzz folder skill ${n}`],
      [5, "d".repeat(2000)],
      [5, randomJson(rng, 1, FILE_JSON)],
      [3, ""],
      [2, "Use it for PDFs: forms and text"],
    ]);
  if (rng.chance(0.3)) data["argument-hint"] = rng.pick<unknown>(["[file]", "<a> <b>", 5]);
  if (rng.chance(0.3))
    data.arguments = rng.pick<unknown>([
      ["topic", "focus"],
      "topic focus",
      ["topic", "topic"],
      ["1bad"],
      { a: 1 },
      [],
      [null],
    ]);
  if (rng.chance(0.3))
    data.metadata = rng.pick<unknown>([
      { tags: "fuzz kmp", version: "1.0" },
      { tags: ["a", "b"] },
      "meta",
      { version: 2 },
    ]);
  if (rng.chance(0.1)) data["user-invocable"] = rng.pick<unknown>([false, true, "no"]);
  if (rng.chance(0.1)) data.when_to_use = randomString(rng, { huge: false });
  if (rng.chance(0.1))
    setKey(
      data,
      rng.pick(["license", "compatibility", "allowed-tools", "model", "unknown-field", "__proto__"]),
      randomJson(rng, 1, FILE_JSON),
    );
  return data;
}

/**
 * An Agent Skills folder: `sm<n>/SKILL.md` (YAML frontmatter, then a body of `$` placeholders),
 * now and then with `examples.yaml`, reference files, a nested `SKILL.md` (a file of the skill,
 * not a skill) or more files than a folder may hold; the `SKILL.md` broken in up to two ways.
 */
function hostileSkillFolder(rng: Random, n: number): SkillFile[] {
  const folder = `${rng.weighted([
    [8, ""],
    [2, "sub/"],
  ])}sm${n}`;
  const data = frontmatterData(rng, n);
  let frontmatter: string;
  try {
    frontmatter = stringify(data, { lineWidth: 0 });
  } catch {
    frontmatter = JSON.stringify(data);
  }
  const body = rng.chance(0.05)
    ? "line\n".repeat(600)
    : Array.from({ length: rng.range(1, 4) }, () => rng.pick(BODY_PIECES)).join("\n");
  const shape = rng.weighted([
    [85, "normal"],
    [4, "no-frontmatter"],
    [4, "unclosed"],
    [4, "empty-frontmatter"],
    [3, "bom"],
  ]);
  const text =
    shape === "no-frontmatter"
      ? body
      : shape === "unclosed"
        ? `---\n${frontmatter}${body}`
        : shape === "empty-frontmatter"
          ? `---\n---\n${body}`
          : `${shape === "bom" ? "\ufeff" : ""}---\n${frontmatter}---\n${body}\n`;
  const applied: string[] = [shape];
  let content: string | Uint8Array = text;
  for (
    let i = rng.weighted([
      [60, 0],
      [30, 1],
      [10, 2],
    ]);
    i > 0;
    i--
  ) {
    const name = rng.pick(Object.keys(MUTATIONS));
    applied.push(name);
    content = MUTATIONS[name]!(rng, typeof content === "string" ? content : Buffer.from(content).toString("latin1"));
  }
  const files: SkillFile[] = [
    {
      path: `${folder}/${rng.chance(0.9) ? "SKILL.md" : "skill.md"}`,
      content,
      label: `SKILL.md folder: ${applied.join(" + ")}`,
    },
  ];
  if (rng.chance(0.3)) {
    const examples = rng.pick([
      "- arguments: { arguments: x }\n  contains: [x]\n",
      "examples:\n  - arguments: {}\n",
      "- arguments: 5\n",
      "not: [a list\n",
      "- { nope: 1 }\n",
    ]);
    files.push({ path: `${folder}/examples.yaml`, content: examples, label: "examples" });
  }
  if (rng.chance(0.3)) files.push({ path: `${folder}/references/guide.md`, content: "# Guide\n", label: "reference" });
  if (rng.chance(0.1))
    files.push({
      path: `${folder}/assets/nested/SKILL.md`,
      content: "---\nname: nested\ndescription: d\n---\nnot a skill\n",
      label: "nested SKILL.md",
    });
  if (rng.chance(0.1))
    files.push({
      path: `${folder}/assets/data.yaml`,
      content: "id: not-a-skill\ndescription: d\ntype: prompt\nprompt: p\n",
      label: "yaml asset",
    });
  if (rng.chance(0.02))
    for (let i = 0; i < 520; i++) files.push({ path: `${folder}/many/f${i}.txt`, content: "x", label: "many files" });
  return files;
}

/** The files of one generated skill: a YAML or JSON file, or (now and then) an Agent Skills folder. */
export function hostileSkill(rng: Random, n: number): SkillFile[] {
  return rng.chance(0.2) ? hostileSkillFolder(rng, n) : [hostileSkillFile(rng, n)];
}

/**
 * Things a layer can hold besides skill files: an ignored draft and a link to a folder outside
 * the layer (whose skills must never be served), a FIFO named like a skill (never opened), a
 * link loop, a dangling link, a folder named like a file, an empty file.
 */
export function writeFileSystemOddities(layer: string, outside: string): string[] {
  const made: string[] = [];
  const file = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  file(join(layer, "_drafts", "draft.yaml"), "id: never-ignored\ndescription: d\ntype: prompt\nprompt: p\n");
  file(join(layer, "_ignored.yaml"), "id: never-ignored\ndescription: d\ntype: prompt\nprompt: p\n");
  file(join(outside, "secret.yaml"), "id: never-outside\ndescription: d\ntype: prompt\nprompt: p\n");
  const tries: [string, () => void][] = [
    ["link out of the layer", () => symlinkSync(outside, join(layer, "outside-link"))],
    ["file link out of the layer", () => symlinkSync(join(outside, "secret.yaml"), join(layer, "secret-link.yaml"))],
    ["link loop", () => symlinkSync(layer, join(layer, "loop"))],
    ["dangling link", () => symlinkSync(join(layer, "gone"), join(layer, "dangling.yaml"))],
    ["folder named like a file", () => mkdirSync(join(layer, "folder.yaml"), { recursive: true })],
    ["empty file", () => file(join(layer, "empty.yaml"), "")],
    [
      "fifo",
      () => {
        if (Bun.spawnSync(["mkfifo", join(layer, "fifo.yaml")]).exitCode !== 0) throw new Error("mkfifo failed");
      },
    ],
  ];
  for (const [what, make] of tries) {
    try {
      make();
      made.push(what);
    } catch {
      // A file system without links or FIFOs: the others still run.
    }
  }
  return made;
}

/** Writes files into a layer folder. */
export function writeLayer(layer: string, files: readonly SkillFile[]): void {
  for (const f of files) {
    const full = join(layer, ...f.path.split("/"));
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, f.content);
  }
}
