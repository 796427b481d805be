import { chmod, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import type { ProcessSandbox } from "../../src/tools/sandbox/process-sandbox.js";
import { cachedSandboxProbe, type SandboxProbe } from "../../src/tools/sandbox/sandbox-probe.js";
import { SandboxUnavailableError } from "../../src/tools/sandbox/sandbox-unavailable-error.js";
import { capability } from "../support/capabilities.js";
import { TemporaryDirectories } from "./support/temporary-directories.js";

const directories = new TemporaryDirectories();
let workspace: string;
let tools: string;

/** A stand-in bwrap that fails the way a host without user namespaces does. */
async function fakeBwrap(name: string, stderr: string): Promise<string> {
  const file = path.join(tools, name);
  await writeFile(file, `#!/bin/sh\necho ${JSON.stringify(stderr)} >&2\nexit 1\n`);
  await chmod(file, 0o755);
  return file;
}

async function unavailable(promise: Promise<ProcessSandbox>): Promise<SandboxUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SandboxUnavailableError);
  return error as SandboxUnavailableError;
}

beforeAll(async () => {
  workspace = await directories.make("atc-create-ws-");
  tools = await directories.make("atc-create-tools-");
});
afterAll(() => directories.cleanup());

describe("createProcessSandbox", () => {
  it("gives scope unrestricted a plain spawn", async () => {
    const sandbox = await createProcessSandbox({ scope: "unrestricted", workspace });
    expect(sandbox).toMatchObject({ kind: "unsandboxed", scope: "unrestricted", workspace });
  });

  it.skipIf(capability("bubblewrap").missing)(
    capability("bubblewrap").label("picks bubblewrap on Linux after a real probe"),
    async () => {
      const sandbox = await createProcessSandbox({ scope: "workspace", workspace });
      expect(sandbox).toMatchObject({ kind: "bubblewrap", scope: "workspace", workspace });
    },
  );

  it("fails closed when bwrap is not installed, saying how to install it", async () => {
    const error = await unavailable(
      createProcessSandbox({ scope: "workspace", workspace, platform: "linux", bubblewrapPath: path.join(tools, "no-bwrap") }),
    );
    expect(error.code).toBe("sandbox_unavailable");
    expect(error.message).toContain("apt-get install -y bubblewrap");
    expect(error.message).toContain("allowUnsandboxedFallback");
  });

  it("fails closed when user namespaces are denied, saying which sysctl to set", async () => {
    const bwrap = await fakeBwrap(
      "bwrap-userns",
      "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.",
    );
    const error = await unavailable(createProcessSandbox({ scope: "local", platform: "linux", bubblewrapPath: bwrap }));
    expect(error.message).toContain("sysctl -w kernel.unprivileged_userns_clone=1");
    expect(error.message).toContain("No permissions to creating new namespace");
  });

  it("reports any other start failure with bwrap's own words", async () => {
    const bwrap = await fakeBwrap("bwrap-other", "bwrap: something unexpected");
    const error = await unavailable(createProcessSandbox({ scope: "local", platform: "linux", bubblewrapPath: bwrap }));
    expect(error.message).toContain("something unexpected");
  });

  it("falls back to unsandboxed only when the host opted in, and says so", async () => {
    const reasons: SandboxUnavailableError[] = [];
    const sandbox = await createProcessSandbox({
      scope: "workspace",
      workspace,
      platform: "linux",
      bubblewrapPath: path.join(tools, "no-bwrap"),
      allowUnsandboxedFallback: true,
      onFallback: (reason) => reasons.push(reason),
    });
    expect(sandbox).toMatchObject({ kind: "unsandboxed", scope: "unrestricted" });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]?.message).toContain("bubblewrap");
  });

  it.each([
    ["win32", "x64", "no sandbox backend for platform"],
    ["linux", "ia32", "x86_64 and aarch64 only"],
  ] as const)("fails closed on %s/%s", async (platform, architecture, text) => {
    const probe: SandboxProbe = async () => ({ ok: true });
    const error = await unavailable(createProcessSandbox({ scope: "local", platform, architecture, probe }));
    expect(error.message).toContain(text);
  });

  // The probe is injected, so bwrap never starts: any root-owned program stands in for it, and
  // these tests hold on a machine without bubblewrap too.
  const standIn = "/bin/sh";

  it("uses an injected probe and its reason", async () => {
    const ok = await createProcessSandbox({
      scope: "workspace",
      workspace,
      platform: "linux",
      bubblewrapPath: standIn,
      probe: async () => ({ ok: true }),
    });
    expect(ok.kind).toBe("bubblewrap");
    const failing: SandboxProbe = async () => ({ ok: false, reason: "the probe said no." });
    expect(
      (
        await unavailable(
          createProcessSandbox({ scope: "workspace", workspace, platform: "linux", bubblewrapPath: standIn, probe: failing }),
        )
      ).message,
    ).toContain("the probe said no.");
  });

  it("picks sandbox-exec on macOS", async () => {
    const sandbox = await createProcessSandbox({
      scope: "workspace",
      workspace,
      platform: "darwin",
      probe: async () => ({ ok: true }),
    });
    expect(sandbox).toMatchObject({ kind: "sandbox-exec", scope: "workspace", workspace });
  });

  it("refuses host misconfiguration with a ConfigurationError", async () => {
    const scope = "everything" as unknown as "local";
    await expect(createProcessSandbox({ scope })).rejects.toMatchObject({ code: "invalid_sandbox_option" });
    await expect(createProcessSandbox({ scope: "workspace" })).rejects.toMatchObject({ code: "invalid_sandbox_option" });
    await expect(createProcessSandbox({ scope: "workspace", workspace: path.join(workspace, "missing") })).rejects.toMatchObject({
      code: "invalid_workspace",
    });
    const probe: SandboxProbe = async () => ({ ok: true });
    await expect(createProcessSandbox({ scope: "workspace", workspace: "/", platform: "linux", probe })).rejects.toMatchObject({
      code: "invalid_workspace",
    });
  });
});

describe("cachedSandboxProbe", () => {
  it("probes each configuration once when it works, and again after a failure", async () => {
    let calls = 0;
    let answer = false;
    const probe = cachedSandboxProbe(async () => {
      calls++;
      return answer ? { ok: true } : { ok: false, reason: "not yet" };
    });
    // bwrap never starts (the probe is injected): a root-owned stand-in, so this holds without bubblewrap.
    const options = { scope: "workspace", workspace, platform: "linux", bubblewrapPath: "/bin/sh", probe } as const;
    await unavailable(createProcessSandbox(options));
    await unavailable(createProcessSandbox(options));
    expect(calls).toBe(2);
    answer = true;
    await createProcessSandbox(options);
    await createProcessSandbox(options);
    await Promise.all([createProcessSandbox(options), createProcessSandbox(options)]);
    expect(calls).toBe(3);
    await createProcessSandbox({ ...options, scope: "local" });
    expect(calls).toBe(4);
  });
});

describe("createProcessSandbox resource limits", () => {
  it("tells the host once when the fallback enforces no limit, and not for scope unrestricted", async () => {
    const told: string[] = [];
    const onLimitsUnavailable = (status: { readonly reason?: string }) => told.push(status.reason ?? "");
    const fallback = await createProcessSandbox({
      scope: "workspace",
      workspace,
      platform: "win32",
      allowUnsandboxedFallback: true,
      onLimitsUnavailable,
    });
    expect(fallback.resourceLimits).toMatchObject({ enforced: false, maxProcesses: undefined, maxMemoryBytes: undefined });
    expect(told).toHaveLength(1);
    expect(told[0]).toContain("not enforced");
    // Scope unrestricted promises nothing, so there is nothing to warn about.
    const plain = await createProcessSandbox({ scope: "unrestricted", workspace, onLimitsUnavailable });
    expect(plain.resourceLimits?.enforced).toBe(false);
    expect(told).toHaveLength(1);
    // limits: false asks for none: nothing is missing.
    const none = await createProcessSandbox({
      scope: "workspace",
      workspace,
      platform: "win32",
      allowUnsandboxedFallback: true,
      limits: false,
      onLimitsUnavailable,
    });
    expect(none.resourceLimits).toMatchObject({ enforced: true });
    expect(told).toHaveLength(1);
  });

  it.skipIf(capability("bubblewrap").missing || capability("cgroups").missing)(
    capability("cgroups").label("reports the limits bubblewrap enforces, and stays silent about them"),
    async () => {
      const told: unknown[] = [];
      const sandbox = await createProcessSandbox({
        scope: "workspace",
        workspace,
        limits: { maxProcesses: 200, maxMemoryBytes: false },
        onLimitsUnavailable: (status) => told.push(status),
      });
      expect(sandbox.resourceLimits).toMatchObject({ enforced: true, maxProcesses: 200, maxMemoryBytes: undefined });
      expect(told).toEqual([]);
    },
  );
});
