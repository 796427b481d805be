/**
 * What the run's copy of a call's arguments costs (src/run/plain-json-copy.ts: plain data copied
 * without being written as JSON text), against the copy through the JSON text
 * (`JSON.parse(JSON.stringify(value))`, what anything else gets) in the same rounds: a small tool
 * call's arguments, about 1 MB of them as 4,500 edits, and a 1 MB file's content (one string). CPU (user + system) per copy,
 * batches timed alternately, medians of the batches. Checked: both copies are equal to the value
 * and neither is the value itself.
 *   node --import tsx bench/core/plain-json-copy.ts [rounds]
 */

import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { copyPlainJson } from "../../src/run/plain-json-copy.js";
import { median, round } from "../stats.js";

/** One value's medians, microseconds of CPU per copy. */
export interface PlainJsonCopyRow {
  readonly value: string;
  /** The value's JSON length, characters. */
  readonly jsonLength: number;
  readonly plainUs: number;
  readonly throughJsonUs: number;
  /** plainUs / throughJsonUs, paired per round, median. */
  readonly ratio: number;
}

/** What {@link measurePlainJsonCopy} measured. */
export interface PlainJsonCopyResult {
  readonly rounds: number;
  readonly rows: readonly PlainJsonCopyRow[];
  readonly loadAverage: readonly number[];
}

function cpuUs(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

function smallCall(): unknown {
  return { path: "src/parser/module-3.ts", old_text: "const limit = 10;", new_text: "const limit = 20;", replace_all: false };
}

function largeCall(): unknown {
  const edits = Array.from({ length: 4_500 }, (_, index) => ({
    old_text: `  const value${index} = compute(${index}, "a line of the file as it was, long enough to matter");`,
    new_text: `  const value${index} = compute(${index}, "a line of the file as it is now, after the edit here");`,
    line: index + 1,
  }));
  return { path: "src/generated/table.ts", edits };
}

function largeFile(): unknown {
  const line = "export const row = compute(42, 'a line of a generated file, written whole by the model');\n";
  return { path: "src/generated/table.ts", content: line.repeat(Math.ceil(1_000_000 / line.length)) };
}

/** `rounds` rounds of a batch of copies each way, per value. */
export function measurePlainJsonCopy(rounds = 5): PlainJsonCopyResult {
  const values = [
    { value: "small call (4 fields)", make: smallCall, batch: 20_000 },
    { value: "about 1 MB of 4,500 edits", make: largeCall, batch: 10 },
    { value: "a 1 MB file's content (one string)", make: largeFile, batch: 50 },
  ];
  const rows = values.map(({ value, make, batch }) => {
    const input = make();
    const jsonLength = JSON.stringify(input).length;
    const plain = () => copyPlainJson(input, Number.MAX_SAFE_INTEGER)?.value;
    const throughJson = () => JSON.parse(JSON.stringify(input)) as unknown;
    for (const copy of [plain, throughJson]) {
      const copied = copy();
      if (copied === input || !isDeepStrictEqual(copied, input))
        throw new Error(`plain-json-copy: a copy of the ${value} is not an equal, separate value`);
    }
    const time = (copy: () => unknown) => {
      const started = cpuUs();
      for (let i = 0; i < batch; i++) copy();
      return (cpuUs() - started) / batch;
    };
    // Warm up the compiled code, then alternate which way goes first.
    for (let i = 0; i < 3; i++) {
      time(plain);
      time(throughJson);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        a.push(time(plain));
        b.push(time(throughJson));
      } else {
        b.push(time(throughJson));
        a.push(time(plain));
      }
    }
    return {
      value,
      jsonLength,
      plainUs: round(median(a), 2),
      throughJsonUs: round(median(b), 2),
      ratio: round(median(a.map((one, i) => one / (b[i] ?? Number.NaN))), 2),
    };
  });
  return { rounds, rows, loadAverage: loadavg().map((value) => round(value, 1)) };
}

/** The README's paragraph for {@link measurePlainJsonCopy}. */
export function renderPlainJsonCopy(result: PlainJsonCopyResult): string {
  return [
    "### Copying a call's arguments",
    "",
    `The run's copy of plain arguments (no JSON text written) against the copy through the JSON text (\`JSON.parse(JSON.stringify(value))\`), batches timed alternately, CPU per copy, medians of ${result.rounds}; checked: both copies equal the value and are not it. Load average ${result.loadAverage.join(" / ")} on ${cpus().length} cores.`,
    "",
    "| arguments | JSON length | plain copy (µs) | through JSON (µs) | ratio |",
    "| --- | --- | --- | --- | --- |",
    ...result.rows.map(
      (row) =>
        `| ${row.value} | ${row.jsonLength.toLocaleString("en-US")} | ${row.plainUs} | ${row.throughJsonUs} | ${row.ratio}x |`,
    ),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = measurePlainJsonCopy(Number(process.argv[2] ?? 5));
  console.log(JSON.stringify(result, null, 2));
  console.log(renderPlainJsonCopy(result));
}
