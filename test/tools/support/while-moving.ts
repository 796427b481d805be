import { spawn } from "node:child_process";

/**
 * Runs `start` once a mover script (directory-mover.mjs, made-directory-mover.mjs), spawned as
 * `node <args>`, has said "watching"; kills the mover when `start` settles and waits for it to
 * exit. Returns `start`'s result and the mover's last line ("moved" when it acted).
 */
export async function whileMoving<T>(args: readonly string[], start: () => Promise<T>): Promise<{ result: T; said: string }> {
  const moving = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "ignore"] });
  let said = "";
  const ready = new Promise<void>((resolve) => {
    moving.stdout.on("data", (chunk) => {
      said += String(chunk);
      if (said.includes("watching")) resolve();
    });
  });
  const ended = new Promise((resolve) => moving.once("exit", resolve));
  await ready;
  const result = await start().finally(() => moving.kill("SIGKILL"));
  await ended;
  return { result, said: said.trim().split("\n").at(-1) ?? "" };
}
