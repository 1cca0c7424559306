import { describe, expect, test } from "bun:test";
import { fieldOfPromptArgument, fieldOfProperty } from "../../src/skill/form-fields.ts";

describe("a skill's arguments as form fields", () => {
  test("a string keeps its title, description, bounds, default and a format a form knows", () => {
    expect(
      fieldOfProperty({
        type: "string",
        title: "T",
        description: "D",
        minLength: 1,
        maxLength: 9,
        format: "email",
        default: "a@b.c",
        pattern: "x",
      }),
    ).toEqual({
      type: "string",
      title: "T",
      description: "D",
      minLength: 1,
      maxLength: 9,
      format: "email",
      default: "a@b.c",
    });
    expect(fieldOfProperty({ type: "string", format: "ipv4" })).toEqual({ type: "string" });
  });

  test("numbers keep their range; booleans their default; a default of the wrong type is left off", () => {
    expect(fieldOfProperty({ type: "integer", minimum: 1, maximum: 5, default: "3" })).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 5,
    });
    expect(fieldOfProperty({ type: "boolean", default: true })).toEqual({ type: "boolean", default: true });
  });

  test("choices: enum as is, oneOf const/title as a titled choice", () => {
    expect(fieldOfProperty({ enum: ["a", "b"] })).toEqual({ type: "string", enum: ["a", "b"] });
    expect(fieldOfProperty({ type: "string", oneOf: [{ const: "a", title: "Alpha" }, { const: "b" }] })).toEqual({
      type: "string",
      oneOf: [
        { const: "a", title: "Alpha" },
        { const: "b", title: "b" },
      ],
    });
    expect(fieldOfProperty({ enum: ["a", 1] })).toBeUndefined();
  });

  test("objects, arrays, unions and missing properties cannot be a field", () => {
    for (const property of [
      { type: "object" },
      { type: "array", items: { type: "string" } },
      { type: ["string", "null"] },
      undefined,
      { $ref: "#/x" },
    ])
      expect(fieldOfProperty(property)).toBeUndefined();
  });

  test("a prompt argument is text, titled by its name, a choice when it lists enum values", () => {
    expect(fieldOfPromptArgument({ name: "focus", required: true, description: "What", enum: ["x"] })).toEqual({
      type: "string",
      title: "focus",
      description: "What",
      enum: ["x"],
    });
  });
});
