import { describe, expect, test } from "bun:test";
import { BoardGuard } from "../../src/board/guard.ts";

const URL_OF_BOARD = "http://127.0.0.1:8741/api/summary";
const request = (headers: Record<string, string>) => new Request(URL_OF_BOARD, { headers });

describe("the board's guard", () => {
  const guard = new BoardGuard();

  test("admits a request with no Origin (not a browser) to the board's own host", () => {
    expect(guard.refuse(request({ host: "127.0.0.1:8741" }))).toBeUndefined();
  });

  test("admits the board's own page (Origin equal to the Host it asked)", () => {
    expect(guard.refuse(request({ host: "127.0.0.1:8741", origin: "http://127.0.0.1:8741" }))).toBeUndefined();
    expect(guard.refuse(request({ host: "localhost:8741", origin: "http://localhost:8741" }))).toBeUndefined();
  });

  test("refuses another site's page with 403", () => {
    expect(guard.refuse(request({ host: "127.0.0.1:8741", origin: "https://evil.example" }))?.status).toBe(403);
  });

  test("refuses a page of another local program (a loopback origin on another port) with 403", () => {
    expect(guard.refuse(request({ host: "127.0.0.1:8741", origin: "http://127.0.0.1:3000" }))?.status).toBe(403);
  });

  test("refuses a foreign Host (DNS rebinding) with 403", () => {
    expect(guard.refuse(request({ host: "evil.example:8741" }))?.status).toBe(403);
  });

  test("refuses a malformed Origin", () => {
    expect(guard.refuse(request({ host: "127.0.0.1:8741", origin: "not a url" }))?.status).toBe(403);
  });
});
