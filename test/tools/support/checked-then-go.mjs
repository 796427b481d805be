// For the kill -9 loops' helper processes (crash-worker.mjs, many-directory-flipper.mjs): a process
// started after a crash makes its one recovering call, then says "checked" and waits for one line
// on stdin. "go" (returns) makes it the next crash's process, so each crash costs one process start,
// not two; the end of stdin, or anything else, makes it exit.
import { createInterface } from "node:readline";

export async function checkedThenAwaitGo() {
  process.stdout.write("checked\n");
  const next = await createInterface({ input: process.stdin })[Symbol.asyncIterator]().next();
  if (next.done || next.value !== "go") process.exit(0);
}
