import { GREP_CHUNK_BYTES } from "../../src/tools/fs/grep-file-chunks.js";

/**
 * A 20 MiB text file: numbered filler lines, with "needle" at the start, in the middle, on the
 * last line, on a line that crosses the JavaScript engine's read border (first piece ends inside
 * it), and just after a piece border (its context lines come from the previous piece).
 */
export function largeText(): string {
  const parts: string[] = ["needle at the start\n"];
  let size = parts[0]?.length ?? 0;
  let number = 2;
  const push = (line: string) => {
    parts.push(`${line}\n`);
    size += line.length + 1;
    number++;
  };
  const fillTo = (bytes: number) => {
    while (size + 60 < bytes) push(`filler line ${number} ${"-".repeat(40)}`);
  };
  fillTo(GREP_CHUNK_BYTES - 10);
  // This line starts before the border and ends after it.
  push(`${"a".repeat(Math.max(0, GREP_CHUNK_BYTES - size - 3))}needle across the border${"b".repeat(20)}`);
  fillTo(10 * 1024 * 1024);
  push("needle in the middle");
  fillTo(2 * GREP_CHUNK_BYTES - 1);
  // The second piece ends at this line's end (or within a few bytes): the next match needs the
  // previous piece's last lines as context.
  while (size < 2 * GREP_CHUNK_BYTES) push(`pad ${number}`);
  push("needle after the second border");
  fillTo(20 * 1024 * 1024 - 30);
  push("needle at the end");
  return parts.join("");
}
