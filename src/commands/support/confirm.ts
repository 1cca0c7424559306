/** Whether someone is there to answer a question: stdin is a terminal. */
export function stdinIsTerminal(): boolean {
  return process.stdin.isTTY === true;
}

/** Asks a yes/no question on the terminal; anything but y/yes (or end of input) is no. */
export async function confirm(question: string, write: (text: string) => void): Promise<boolean> {
  write(question);
  for await (const line of console) return /^\s*y(es)?\s*$/i.test(line);
  return false;
}
