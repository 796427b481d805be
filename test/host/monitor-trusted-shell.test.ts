/**
 * The `monitor` tool started a bare `"bash"` looked up on `PATH`, while the `bash` tool runs a
 * `bash` it trusts (root-owned, not writable by others, outside the workspace): a model-written
 * `bash` in the workspace, on an earlier `PATH` entry, ran under monitor. Both now run the same
 * trusted shell. The control: a naive lookup on the same `PATH` does run the planted one.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { monitorToolGroup } from "../../src/host/index.js";
import { createBashTool } from "../../src/tools/index.js";
import { hostRun, record, temporaryDirectory, text } from "./support/host-test-kit.js";

const originalPath = process.env.PATH;

describe("monitor runs the trusted bash, as the bash tool does", () => {
  let root: { path: string; remove(): Promise<void> };
  let marker: string;
  beforeEach(async () => {
    root = await temporaryDirectory("monitor-shell-");
    const bin = path.join(root.path, "bin");
    marker = path.join(root.path, "hostile-bash-ran");
    await mkdir(bin);
    await writeFile(path.join(bin, "bash"), `#!/bin/sh\ntouch '${marker}'\necho HOSTILE\n`);
    await chmod(path.join(bin, "bash"), 0o755);
    process.env.PATH = `${bin}:${originalPath}`;
  });
  afterEach(async () => {
    process.env.PATH = originalPath;
    await root.remove();
  });

  it("does not run a bash planted on an earlier PATH entry; both tools still run commands", async () => {
    const { run } = hostRun([monitorToolGroup({}), { name: "shell", tools: () => [createBashTool({})] }], {
      permissions: { sandbox: "unrestricted", workspace: root.path },
    });
    const started = record(await run.call("monitor", { action: "start", command: "echo from-monitor" }));
    const waited = record(await run.call("monitor", { action: "wait", id: started.id, timeout_seconds: 10 }));
    // A command that ends at once is answered with its output in the start result.
    const output = `${started.output ?? ""}${waited.output ?? ""}`;
    expect(output).toContain("from-monitor");
    expect(output).not.toContain("HOSTILE");
    expect(text(await run.call("bash", { command: "echo from-bash" }))).toContain("stdout:\nfrom-bash");
    expect(existsSync(marker)).toBe(false);

    // Control: the planted bash is what a plain PATH lookup runs.
    execFileSync("/bin/sh", ["-c", "bash -c true"], { env: { PATH: process.env.PATH } });
    expect(existsSync(marker)).toBe(true);
  });
});
