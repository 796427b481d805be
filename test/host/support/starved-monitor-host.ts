/**
 * A host whose event loop is starved while the monitor tool runs short commands, as a host running
 * many calls at once is. Argv: scope, workspace, copies, milliseconds each block lasts. Each of
 * {@link COMMANDS} is started `copies` times per way of observing its end ({@link WAYS}), each in
 * a run of its own, while a timer keeps blocking the loop; for each it prints, as JSON between
 * markers, every answer that named an exit (status) with the output the model had read by then
 * (start's, wait's and poll's answers, in order), and what a last poll still found.
 */
// Public entries only: with a current build the test runs this under tsx on dist/ (test/support/child-entry.ts),
// transforming these two files instead of all of src/.
import { createRegistry } from "agent-tool-catalog";
import { monitorToolGroup } from "agent-tool-catalog/host";
import { COMMANDS, type Observation, WAYS } from "./starved-monitor-commands.js";

const [scope, workspace, copies, blockMs] = process.argv.slice(2) as ["workspace" | "unrestricted", string, string, string];
const registry = createRegistry({
  groups: [
    monitorToolGroup({ maxProcesses: Number.POSITIVE_INFINITY, maxPollBytes: Number.POSITIVE_INFINITY, maxBufferBytes: 1 << 20 }),
  ],
});

type Answer = Record<string, unknown>;

const block = Number(blockMs);
const busy = setInterval(() => {
  const end = performance.now() + block;
  while (performance.now() < end) {
    // Starves the loop: the exit and the last output arrive while it spins, handled in one go.
  }
}, 50);

async function observe(name: keyof typeof COMMANDS, way: (typeof WAYS)[number]): Promise<Observation> {
  const expected = COMMANDS[name];
  // No condensing: a 96 KiB answer is checked whole.
  const run = registry.createRun({
    profile: "full",
    permissions: { sandbox: scope, workspace },
    condenseThreshold: Number.POSITIVE_INFINITY,
  });
  run.activate(["monitor"]);
  let read = "";
  const exits: Observation["exits"][number][] = [];
  const errors: string[] = [];
  const call = async (input: Answer): Promise<Answer> => {
    const result = await run.call("monitor", input);
    if (!result.ok) {
      errors.push(`${String(input.action)}: ${result.error.code}`);
      return {};
    }
    const answer = (typeof result.output === "string" ? JSON.parse(result.output) : result.output) as Answer;
    read += typeof answer.output === "string" ? answer.output : "";
    const status = String(answer.status ?? (answer as { 0?: Answer })[0]?.status ?? "");
    if (status !== "running" && status !== "") {
      exits.push({ action: String(input.action), status, read: read.length, complete: read === expected.output });
    }
    return answer;
  };
  await call({ action: "start", command: expected.command });
  if (way === "wait") await call({ action: "wait", id: "mon_1", timeout_seconds: 60 });
  else if (way === "pattern") await call({ action: "wait", id: "mon_1", pattern: "never printed", timeout_seconds: 60 });
  else {
    // list's answer carries no output: the poll right after it must find all of it.
    for (;;) {
      const listed = await run.call("monitor", { action: "list" });
      const status = listed.ok ? String((listed.output as Answer[])[0]?.status) : "";
      if (status !== "running") {
        await call({ action: "poll", id: "mon_1" });
        exits.push({ action: "list", status, read: read.length, complete: read === expected.output });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  const before = read.length;
  await call({ action: "poll", id: "mon_1" });
  await run.close();
  return { name, way, exits, late: read.length - before, errors };
}

const all: Promise<Observation>[] = [];
for (let copy = 0; copy < Number(copies); copy++) {
  for (const name of Object.keys(COMMANDS) as (keyof typeof COMMANDS)[]) for (const way of WAYS) all.push(observe(name, way));
}
const results = await Promise.all(all);
clearInterval(busy);
process.stdout.write(`<<<${JSON.stringify(results)}>>>\n`);
