/**
 * Prints, after the run, a loud summary of the suites skipped because a machine capability was
 * missing (tests titled with `[needs <name>]`, see test/support/capabilities.ts), with how to
 * enable each. Silent when nothing was skipped for that reason.
 */
import type { Reporter, TestModule } from "vitest/node";
import { CAPABILITY_SETUP, type CapabilityName, REQUIRE_CAPABILITIES_VARIABLE } from "./capabilities.js";

const TAG = /\[needs ([a-z-]+)\]/;

export default class CapabilityReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped = new Map<string, string[]>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        if (test.result().state !== "skipped") continue;
        const match = TAG.exec(test.fullName);
        if (match === null) continue;
        const name = match[1] as string;
        const files = skipped.get(name) ?? [];
        files.push(module.moduleId);
        skipped.set(name, files);
      }
    }
    if (skipped.size === 0) return;
    const lines = ["", "!".repeat(78), "!! SKIPPED: tests that need a capability this machine does not have", "!!"];
    for (const [name, files] of skipped) {
      const distinct = [...new Set(files)].map((file) => file.replace(`${process.cwd()}/`, ""));
      lines.push(`!! ${name}: ${files.length} test(s) skipped in ${distinct.length} file(s)`);
      for (const file of distinct) lines.push(`!!   ${file}`);
      lines.push(`!!   to enable: ${CAPABILITY_SETUP[name as CapabilityName] ?? "see test/support/capabilities.ts"}`);
    }
    lines.push("!!", `!! CI sets ${REQUIRE_CAPABILITIES_VARIABLE}=1, which turns these skips into failures.`, "!".repeat(78), "");
    process.stdout.write(`${lines.join("\n")}\n`);
  }
}
