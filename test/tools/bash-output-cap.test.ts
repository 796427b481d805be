/**
 * bash's output cap with real processes: a stream over `maxOutputBytes` keeps its first and last
 * halves with a marker, so the end of a long build or test run (its error, its summary) reaches
 * the model even after the run condenses the text to head and tail; memory stays bounded under a
 * gigabyte on both streams; cuts fall on character boundaries.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";

const bubblewrap = capability("bubblewrap");
const scopes: SandboxScope[] = ["unrestricted", ...(bubblewrap.missing ? [] : (["workspace"] as const))];

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-bash-cap-"));
});
afterAll(async () => rm(workspace, { recursive: true, force: true }));

function text(result: ToolCallResult): string {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return String(result.output);
}

async function bash(sandbox: SandboxScope, command: string, maxOutputBytes?: number, condense = true): Promise<string> {
  const registry = createRegistry({
    tools: [createBashTool(maxOutputBytes === undefined ? {} : { maxOutputBytes })],
  });
  try {
    // The run's default condensing (40,000 characters, head and tail) stays on unless a test looks
    // at the whole kept output, as a model sees it.
    const run = registry.createRun({
      profile: "full",
      permissions: { sandbox, workspace },
      ...(condense ? {} : { condenseThreshold: Number.POSITIVE_INFINITY }),
    });
    return text(await run.call("bash", { command, timeout_seconds: 60 }));
  } finally {
    await registry.close();
  }
}

describe("bash: output over the cap", () => {
  it.each(scopes)("a long output's last lines reach the model, with a marker saying how much was cut (%s)", async (sandbox) => {
    const command = "echo START; head -c 3000000 /dev/zero | tr '\\0' a; echo; echo 'error: THE-END'; exit 3";
    const output = await bash(sandbox, command);
    expect(output).toMatch(/^exit code 3 · /);
    expect(output).toContain("START");
    expect(output).toContain("error: THE-END");
    expect(output).toContain("[output over the limit was cut]");
    // Uncondensed: 1 MiB kept, the cut in its middle says how much is missing there.
    const whole = await bash(sandbox, command, undefined, false);
    const cut = /\n\[\.\.\. (\d+) bytes of stdout cut here \.\.\.\]\n/.exec(whole);
    expect(Number(cut?.[1])).toBe(3_000_000 + "START\n\nerror: THE-END\n".length - 1024 * 1024);
  });

  it("a gigabyte on stdout and stderr at once: both ends kept, memory bounded", async () => {
    const before = process.memoryUsage().rss;
    const output = await bash(
      "unrestricted",
      "{ echo OUT-START; head -c 1000000000 /dev/zero; echo; echo OUT-END; } & { echo ERR-START; head -c 1000000000 /dev/zero; echo; echo ERR-END; } >&2; wait",
      undefined,
      false,
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    for (const mark of ["OUT-START", "OUT-END", "ERR-START", "ERR-END"]) expect(output).toContain(mark);
  }, 120_000);

  it("cuts fall between characters, never inside one", async () => {
    const output = await bash("unrestricted", "for i in $(seq 2000); do printf '€'; done; echo", 1001);
    expect(output).not.toContain("\uFFFD");
    expect(output).toMatch(/€+\n\[\.\.\. \d+ bytes of stdout cut here \.\.\.\]\n€+/);
  });

  it.each([
    // [cap, command, bytes printed, kept head, kept tail]: the cut halves a 2-, 3- or 4-byte character.
    [10, "printf 'aé€😀b%.0s' $(seq 40)", 440, "aé", "😀b"],
    [9, "printf '%s' 😀😀😀😀😀😀😀😀😀😀", 40, "😀", "😀"],
    [7, "printf 'x😀😀😀😀😀😀😀😀😀😀'", 41, "x", ""],
    // Control: the cut falls between characters, nothing is halved.
    [11, "printf 'aé€😀b%.0s' $(seq 40)", 440, "aé€", "😀b"],
  ] as const)(
    "the marker counts exactly the bytes not shown, halved characters too (cap %i)",
    async (cap, command, total, head, tail) => {
      const output = await bash("unrestricted", command, cap, false);
      const cut =
        /\nstdout:\n(.*)\n\[\.\.\. (\d+) bytes of stdout cut here \.\.\.\]\n(.*?)\n?\[output over the limit was cut\]$/s.exec(
          output,
        );
      expect(cut?.slice(1), output).toEqual([head, String(total - Buffer.byteLength(head) - Buffer.byteLength(tail)), tail]);
    },
  );

  it("control: output under the cap is exactly what the command printed", async () => {
    const output = await bash("unrestricted", "printf 'one\\ntwo €\\n'; printf 'three\\n' >&2", 64);
    expect(output).toMatch(/^exit code 0 · .*\nstdout:\none\ntwo €\nstderr:\nthree$/);
  });
});
