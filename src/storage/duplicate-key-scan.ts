/**
 * A conservative pre-check for duplicate mapping keys, so that the fast parser (`Bun.YAML.parse`,
 * ~10× quicker than the `yaml` package but "last key wins") can be used for the common case.
 *
 * It understands the block-style YAML that skill files are written in: nested mappings,
 * sequences of mappings, block scalars (`|`, `>`), comments. Whenever a line could hide a key it
 * does not model (flow mappings, anchors, aliases, merge keys, tags, complex keys, directives,
 * multiple documents, tabs) it answers `unsure`, and the caller falls back to the `yaml` package,
 * which is authoritative. A false alarm costs only speed; `clean` must never be wrong.
 */
export type ScanVerdict = { kind: "clean" } | { kind: "unsure" } | { kind: "duplicate"; line: number; key: string };

const CLEAN: ScanVerdict = { kind: "clean" };
const UNSURE: ScanVerdict = { kind: "unsure" };

const PLAIN_KEY = /^((?:[^\s:#'"{}[\],&*!|>%@`?-]|-(?=\S))(?:[^:#]|:(?=\S)|#(?<!\s#))*?)[ ]*:(?=\s|$)/;
const DOUBLE_QUOTED_KEY = /^"((?:[^"\\]|\\.)*)"[ ]*:(?=\s|$)/;
const SINGLE_QUOTED_KEY = /^'((?:[^']|'')*)'[ ]*:(?=\s|$)/;
const BLOCK_SCALAR = /^[|>][0-9+-]*[ ]*(?:#.*)?$/;
/** Value openings that introduce constructs this scanner does not model. */
const RISKY_VALUE_START = /^[{&*!?%@`]/;

interface OpenMapping {
  indent: number;
  keys: Set<string>;
}

function leadingSpaces(line: string): number {
  let i = 0;
  while (line.charCodeAt(i) === 32) i++;
  return i;
}

function isRiskyValue(value: string): boolean {
  if (value === "" || value.startsWith("#")) return false;
  if (RISKY_VALUE_START.test(value)) return true;
  return value.startsWith("[") && value.includes("{");
}

export function scanDuplicateKeys(text: string): ScanVerdict {
  const lines = text.split("\n");
  const stack: OpenMapping[] = [];
  /** While >= 0, lines indented deeper than this belong to a block scalar. */
  let blockScalarParent = -1;

  const closeDeeperThan = (indent: number): void => {
    while (stack.length > 0 && stack[stack.length - 1]!.indent > indent) stack.pop();
  };

  for (let index = 0; index < lines.length; index++) {
    let line = lines[index]!;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const trimmed = line.trim();
    if (blockScalarParent >= 0) {
      if (trimmed === "" || leadingSpaces(line) > blockScalarParent) continue;
      blockScalarParent = -1;
    }
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    if (line.includes("\t") && /^\s*\t/.test(line)) return UNSURE;
    if (line.startsWith("---") || line.startsWith("...") || line.startsWith("%")) {
      if (index === 0 && trimmed === "---") continue;
      return UNSURE;
    }

    let indent = leadingSpaces(line);
    let rest = line.slice(indent);
    let startsItem = false;
    while (rest === "-" || rest.startsWith("- ")) {
      const afterDash = rest.slice(1);
      const gap = leadingSpaces(afterDash);
      closeDeeperThan(indent);
      startsItem = true;
      if (afterDash.trim() === "") {
        rest = "";
        break;
      }
      indent += 1 + gap;
      rest = afterDash.slice(gap);
    }
    if (rest === "") continue;
    if (startsItem && BLOCK_SCALAR.test(rest)) {
      blockScalarParent = indent - 1;
      continue;
    }

    const match = PLAIN_KEY.exec(rest) ?? DOUBLE_QUOTED_KEY.exec(rest) ?? SINGLE_QUOTED_KEY.exec(rest);
    if (!match) {
      // Not a key: a scalar item or the continuation of a multi-line scalar, unless it opens
      // something that could carry keys of its own.
      if (isRiskyValue(rest)) return UNSURE;
      continue;
    }
    const key = match[1]!;
    if (key === "<<") return UNSURE;
    const value = rest.slice(match[0].length).trim();
    if (isRiskyValue(value)) return UNSURE;

    if (startsItem) {
      // A sequence item begins a fresh mapping at the item's content column.
      while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    } else {
      closeDeeperThan(indent);
    }
    let top = stack[stack.length - 1];
    if (!top || top.indent < indent) {
      top = { indent, keys: new Set() };
      stack.push(top);
    }
    if (top.keys.has(key)) return { kind: "duplicate", line: index + 1, key };
    top.keys.add(key);

    if (BLOCK_SCALAR.test(value)) blockScalarParent = indent;
  }
  return CLEAN;
}
