/**
 * Escape attempts through a command's output: terminal control sequences (erase the line and
 * print a fake status over it, set the window title, write the clipboard with OSC 52), a
 * bidirectional override, NUL and DEL. The result reaches the model and, through events, the
 * host's logs and console: none of these may arrive as a live control character, and the
 * bytes must still be readable (as visible stand-ins). Control: plain text, tabs, newlines and
 * non-ASCII UTF-8 come through unchanged.
 */
import type { SandboxScope, ToolResultEvent } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { monitorToolGroup } from "../../src/host/index.js";
import { hostRun, record } from "../host/support/host-test-kit.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/** Every control character but `\n` and `\t`, C1 controls and the bidirectional ones. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const LIVE_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Prints, on stdout and stderr: a line erased and overwritten with a fake status, a title, OSC 52, a bidi override, NUL, DEL. */
const HOSTILE =
  "printf 'exit code 1\\r\\033[2Kexit code 0\\033]0;owned\\007\\033]52;c;cm0gLXJmIH4=\\007\\xe2\\x80\\xaeevil\\x00\\x7f\\xc2\\x9b31m\\n'";
const SHOWN = "exit code 1␍␛[2Kexit code 0␛]0;owned␇␛]52;c;cm0gLXJmIH4=␇[U+202E]evil␀␡[U+009B]31m";

const PLAIN = "naïve 中文 🙂\tcolumn\nsecond line";

describe("escape attempts: control sequences in a command's output", () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());
  const scopes: SandboxScope[] = ["unrestricted", ...(bubblewrap.missing ? [] : (["workspace", "local"] as const))];

  escapeAttempt("processes", "bash output carries a fake status over an erased line, OSC 52 and a bidi override", async () => {
    for (const scope of scopes) {
      const run = attackRun(ground.workspace, scope);
      const seen: string[] = [];
      run.events.on("tool.result", (event: ToolResultEvent) => seen.push(JSON.stringify(event)));
      const result = await run.call("bash", { command: `${HOSTILE}; ${HOSTILE} >&2` });
      expect(result.ok, scope).toBe(true);
      const text = result.ok ? String(result.output) : "";
      expect(text, scope).not.toMatch(LIVE_CONTROL);
      expect(text.split("\n")[0], scope).toMatch(/^exit code 0 · /);
      expect(text, scope).toContain(`stdout:\n${SHOWN}`);
      expect(text, scope).toContain(`stderr:\n${SHOWN}`);
      for (const event of seen) expect(JSON.parse(event).output ?? "", scope).not.toMatch(LIVE_CONTROL);
      // Control: ordinary output, tabs and non-ASCII UTF-8 are unchanged; CRLF is a line end.
      const plain = await run.call("bash", { command: `printf '%s\\r\\n' ${quote(PLAIN)}` });
      expect(plain.ok && String(plain.output), scope).toContain(`stdout:\n${PLAIN}`);
    }
  });

  escapeAttempt("processes", "monitor output carries the same sequences", async () => {
    const { run } = hostRun([monitorToolGroup({})], { permissions: { sandbox: "unrestricted", workspace: ground.workspace } });
    const command = `${HOSTILE}; printf '%s\\n' ${quote(PLAIN)}`;
    const started = record(await run.call("monitor", { action: "start", command }));
    const waited = record(await run.call("monitor", { action: "wait", id: "mon_1", timeout_seconds: 10 }));
    expect(waited.waited).toBe("exited");
    // A command that ends at once answers in start; the rest comes with wait.
    const output = String(started.output ?? "") + String(waited.output);
    expect(output).not.toMatch(LIVE_CONTROL);
    expect(output).toBe(`${SHOWN}\n${PLAIN}\n`);
  });
});
