import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { readSkillFile } from "../../src/storage/read.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

function textOf(file: string): string {
  const read = readSkillFile(file);
  if (!read.ok) throw new Error(read.diagnostic.message);
  return read.source.text;
}

describe("reading a skill file", () => {
  test("each text is its own: reading another file (into the same buffer) never changes one already read", () => {
    fixture = makeFixture();
    const ascii = fixture.write("a.md", "---\nname: a\n---\nplain text\n");
    const wide = fixture.write("b.md", "---\nname: b\n---\nnaïve — ünïcödé 🙂\n");
    const short = fixture.write("c.md", "x");
    const first = textOf(ascii);
    const second = textOf(wide);
    const third = textOf(short);
    expect([first, second, third]).toEqual([
      "---\nname: a\n---\nplain text\n",
      "---\nname: b\n---\nnaïve — ünïcödé 🙂\n",
      "x",
    ]);
    writeFileSync(ascii, "changed on disk");
    expect(first).toBe("---\nname: a\n---\nplain text\n");
  });

  test("files larger than the shared buffer, and empty ones, come back whole", () => {
    fixture = makeFixture();
    const big = `${"é".repeat(40_000)}\n${"line\n".repeat(20_000)}`;
    expect(textOf(fixture.write("big.md", big))).toBe(big);
    expect(textOf(fixture.write("empty.md", ""))).toBe("");
    expect(textOf(fixture.write("after.md", "small after big"))).toBe("small after big");
  });

  test("bytes that are not UTF-8 read as U+FFFD, as before", () => {
    fixture = makeFixture();
    const file = fixture.write("bad.md", "");
    writeFileSync(file, new Uint8Array([0x61, 0xff, 0x62, 0xe2, 0x82]));
    expect(textOf(file)).toBe("a\ufffdb\ufffd");
  });
});
