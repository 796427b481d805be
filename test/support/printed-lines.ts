import type { ChildProcess } from "node:child_process";

/** A child process watched for the lines it prints (see `printedLines`). */
export interface PrintedLines {
  /** Its exit code or signal once its output is all read (the "close" event). */
  readonly closed: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /**
   * Resolves once the child printed `line` (a whole line of its stdout); rejects, naming `name`,
   * its exit and its stderr, if it ends without having printed it.
   */
  said(line: string): Promise<void>;
}

/**
 * Watches `child`'s stdout for whole lines, for tests whose helper processes report their progress
 * ("ready", "checked") and wait for the test's next word on stdin. Call it before the child can
 * print, i.e. right after `spawn`.
 */
export function printedLines(child: ChildProcess, name: string): PrintedLines {
  let stdout = "";
  let stderr = "";
  const looks = new Set<() => void>();
  child.stdout?.on("data", (chunk) => {
    stdout += String(chunk);
    for (const look of looks) look();
  });
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  const printed = (line: string) => stdout.split("\n").includes(line);
  const said = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const look = () => {
        if (!printed(line)) return;
        looks.delete(look);
        resolve();
      };
      looks.add(look);
      look();
      closed.then(({ code, signal }) => {
        looks.delete(look);
        if (printed(line)) resolve();
        else reject(new Error(`${name} ended (${code ?? signal}) before "${line}": ${stderr}`));
      });
    });
  return { closed, stderr: () => stderr, said };
}
