/**
 * Prints two summaries after the run:
 * - the escape-attempt suite (tests titled `[escape:<class>]`, see test/escape/support): a line
 *   per class and `escape attempts=N escaped=M` in total (a failed attempt is an escape);
 * - a loud list of the tests skipped because a machine capability was missing (titles tagged
 *   `[needs <name>]`, see test/support/capabilities.ts), with how to enable each.
 */
import type { Reporter, TestModule } from "vitest/node";
import { CAPABILITY_SETUP, type CapabilityName, REQUIRE_CAPABILITIES_VARIABLE } from "./capabilities.js";

const NEEDS = /\[needs ([a-z-]+)\]/;
const ESCAPE = /\[escape:([a-z-]+)\]/;

interface EscapeTally {
  attempts: number;
  escaped: number;
  skipped: number;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped = new Map<string, string[]>();
    const escapes = new Map<string, EscapeTally>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        const escapeMatch = ESCAPE.exec(test.fullName);
        if (escapeMatch !== null) {
          const tally = escapes.get(escapeMatch[1] as string) ?? { attempts: 0, escaped: 0, skipped: 0 };
          if (state === "skipped") tally.skipped++;
          else {
            tally.attempts++;
            if (state === "failed") tally.escaped++;
          }
          escapes.set(escapeMatch[1] as string, tally);
        }
        const needs = state === "skipped" ? NEEDS.exec(test.fullName) : null;
        if (needs !== null) {
          const files = skipped.get(needs[1] as string) ?? [];
          files.push(module.moduleId);
          skipped.set(needs[1] as string, files);
        }
      }
    }
    const lines: string[] = [];
    if (escapes.size > 0) lines.push(...escapeSummary(escapes));
    if (skipped.size > 0) lines.push(...skipSummary(skipped));
    if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
  }
}

function escapeSummary(escapes: Map<string, EscapeTally>): string[] {
  const lines = ["", "Escape-attempt suite:"];
  const total: EscapeTally = { attempts: 0, escaped: 0, skipped: 0 };
  for (const [name, tally] of [...escapes].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(
      `  ${name.padEnd(14)} attempts=${tally.attempts} escaped=${tally.escaped}${tally.skipped > 0 ? ` skipped=${tally.skipped}` : ""}`,
    );
    total.attempts += tally.attempts;
    total.escaped += tally.escaped;
    total.skipped += tally.skipped;
  }
  lines.push(
    `escape attempts=${total.attempts} escaped=${total.escaped}${total.skipped > 0 ? ` skipped=${total.skipped}` : ""}`,
    "",
  );
  return lines;
}

function skipSummary(skipped: Map<string, string[]>): string[] {
  const lines = ["", "!".repeat(78), "!! SKIPPED: tests that need a capability this machine does not have", "!!"];
  for (const [name, files] of skipped) {
    const distinct = [...new Set(files)].map((file) => file.replace(`${process.cwd()}/`, ""));
    lines.push(`!! ${name}: ${files.length} test(s) skipped in ${distinct.length} file(s)`);
    for (const file of distinct) lines.push(`!!   ${file}`);
    lines.push(`!!   to enable: ${CAPABILITY_SETUP[name as CapabilityName] ?? "see test/support/capabilities.ts"}`);
  }
  lines.push("!!", `!! CI sets ${REQUIRE_CAPABILITIES_VARIABLE}=1, which turns these skips into failures.`, "!".repeat(78), "");
  return lines;
}
