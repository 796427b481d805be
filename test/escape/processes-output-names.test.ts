/**
 * Escape attempts through text the host writes around a command's output: the names of the git
 * control files it removed after the command, and the message of a sandbox that refused to start
 * (a git directory behind a symbolic link, put back by the user after the command's own was moved
 * aside, with a note that names it too). Both name a path a sandboxed command chose, so a
 * command that names a directory `r\e]0;owned\a\e[2J` (an earlier call's `mkdir`) put live escape
 * sequences (a window title, a cleared screen, OSC 52 to the clipboard) into the bash result, the
 * monitor's status and the run's error, which reach the host's logs and terminal. stdout and
 * stderr were already shown with visible stand-ins. Control: the note and the refusal still come,
 * naming the path with its bytes readable (`␛`, `␇`), and the directory does hold the escape.
 */
import { readdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { createRegistry, type SandboxScope } from "agent-tool-catalog";
import { connectMcpServer, McpConnectionError } from "agent-tool-catalog/mcp";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { monitorToolGroup } from "../../src/host/index.js";
import { hostRun, record } from "../host/support/host-test-kit.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const LIVE_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** A directory name that sets the window title and clears the screen, as printf makes it. */
const HOSTILE_NAME = `$(printf 'r\\033]0;owned\\007\\033[2J')`;
/** How that name reads once shown. */
const SHOWN_NAME = "r␛]0;owned␇␛[2J";

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: escape sequences in names the host reports"), () => {
  let ground: Playground;
  beforeEach(async () => {
    ground = await playground();
  });
  afterEach(async () => ground.dispose());

  escapeAttempt("processes", "a removed control file's name in the bash result (a repository named with escapes)", async () => {
    for (const scope of ["workspace"] as const satisfies SandboxScope[]) {
      const run = attackRun(ground.workspace, scope);
      const made = await sh(run, `d=${HOSTILE_NAME}-${scope}; mkdir -p "$d" && git -C "$d" init -q && echo made`);
      expect(made.stdout, scope).toBe("made");
      const planted = await run.call("bash", { command: `echo /tmp > ${HOSTILE_NAME}-${scope}/.git/commondir` });
      const text = planted.ok ? String(planted.output) : planted.error.message;
      expect(text, scope).not.toMatch(LIVE_CONTROL);
      // Control: the file was removed and the note names it, its escapes readable.
      expect(text, scope).toContain(`which host git would follow: ${SHOWN_NAME}-${scope}/.git/commondir]`);
    }
    expect(readdirSync(ground.workspace).filter((name) => name.startsWith("r\u001b]0;owned\u0007"))).toHaveLength(1);
  });

  escapeAttempt("processes", "a refused start's message in the run's error and the monitor's status", async () => {
    const run = attackRun(ground.workspace, "workspace");
    // A `.git` link a command leaves is moved aside after it (round 43's follow-up), and the note
    // naming it is text the host writes too.
    const made = await run.call("bash", {
      command: `d=${HOSTILE_NAME}; mkdir -p "$d" real && ln -s ../real "$d/.git" && echo made`,
    });
    const note = made.ok ? String(made.output) : made.error.message;
    expect(note).not.toMatch(LIVE_CONTROL);
    expect(note).toContain(`${SHOWN_NAME}/.git`);
    // The user puts it back (or made it on the host): the next start is refused, naming it.
    symlinkSync("../real", path.join(ground.workspace, "r\u001b]0;owned\u0007\u001b[2J", ".git"));
    const refused = await run.call("bash", { command: "echo after" });
    expect(refused.ok).toBe(false);
    const message = refused.ok ? "" : refused.error.message;
    expect(message).not.toMatch(LIVE_CONTROL);
    // Control: the refusal names the link, its escapes readable.
    expect(message).toContain(`/${SHOWN_NAME}/.git is a symbolic link`);
    const { run: monitored } = hostRun([monitorToolGroup({})], {
      permissions: { sandbox: "workspace", workspace: ground.workspace },
    });
    const started = await monitored.call("monitor", { action: "start", command: "echo after" });
    const shown = started.ok ? JSON.stringify(record(started)) : started.error.message;
    expect(shown).not.toMatch(LIVE_CONTROL);
    expect(shown).toContain(SHOWN_NAME);
  });
});

describe("escape attempts: escape sequences in a stdio MCP server's diagnostics", () => {
  escapeAttempt("processes", "the stderr tail of an MCP server that fails to start, in the connect error", async () => {
    const registry = createRegistry();
    try {
      const failure = await connectMcpServer(registry, {
        name: "hostile",
        command: process.execPath,
        args: ["-e", "process.stderr.write('cannot start\\x1b]0;owned\\x07\\x1b[2J\\x1b]52;c;cm0gLXJm\\x07'); process.exit(2)"],
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(McpConnectionError);
      const error = failure as McpConnectionError;
      expect(error.message).not.toMatch(LIVE_CONTROL);
      expect(JSON.stringify(error.data)).not.toMatch(/\\u001b/);
      // Control: the server's last output is still there to read.
      expect(error.message).toContain("cannot start␛]0;owned␇␛[2J␛]52;c;cm0gLXJm␇");
    } finally {
      await registry.close();
    }
  });
});

describe("escape attempts: escape sequences a stdio MCP server writes to stdout", () => {
  escapeAttempt(
    "processes",
    "a line that is not JSON-RPC, quoted by the error of the call it broke",
    async () => {
      const registry = createRegistry();
      try {
        const server = path.join(import.meta.dirname, "..", "mcp", "servers", "raw-stream-server.mjs");
        await connectMcpServer(registry, { name: "raw", command: process.execPath, args: [server, "garbage"], timeoutMs: 8000 });
        const run = registry.createRun();
        run.activate(["mcp_raw_broken", "mcp_raw_echo"]);
        // Positive control: the server answers well-formed calls.
        expect(await run.call("mcp_raw_echo", { text: "before" })).toMatchObject({ ok: true, output: "before" });
        const result = await run.call("mcp_raw_broken", {});
        expect(result.ok).toBe(false);
        const shown = JSON.stringify(result);
        expect(shown).not.toMatch(/\\u001b|\\u0007/);
        // The bad line is still there to read, with its bytes visible.
        expect(shown).toContain("␛]0;owned␇");
      } finally {
        await registry.close();
      }
    },
    20_000,
  );
});
