/**
 * The tool names a conversation activated, read from its messages as a provider stored them:
 * `find_tool` results (as text or JSON, in AI SDK, Anthropic or OpenAI message shapes), Anthropic
 * tool search `tool_reference` blocks and OpenAI `tool_search_output` items. A host that keeps
 * only messages restores a run's activations from them (`run.restoreFromTranscript`).
 *
 * It walks every object and string in `messages` (up to a depth and size bound, so a hostile or
 * huge transcript cannot stall the host) and returns names in first-activation order.
 */
export function activationsFromTranscript(messages: unknown): string[] {
  const names = new Set<string>();
  const budget = { nodes: 200_000 };
  walk(messages, names, budget, 0);
  return [...names];
}

const MAX_DEPTH = 64;
const MAX_PARSED_STRING = 1_000_000;

function walk(value: unknown, names: Set<string>, budget: { nodes: number }, depth: number): void {
  if (depth > MAX_DEPTH || --budget.nodes < 0) return;
  if (typeof value === "string") walkText(value, names, budget, depth);
  else if (Array.isArray(value)) for (const item of value) walk(item, names, budget, depth + 1);
  else if (typeof value === "object" && value !== null) walkObject(value as Record<string, unknown>, names, budget, depth);
}

/** A find_tool result serialised as text; cheap test first. */
function walkText(value: string, names: Set<string>, budget: { nodes: number }, depth: number): void {
  if (value.length > MAX_PARSED_STRING || !value.includes('"activated"')) return;
  const start = value.indexOf("{");
  if (start === -1) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.slice(start));
  } catch {
    return; // Not JSON: ordinary text.
  }
  walk(parsed, names, budget, depth + 1);
}

function walkObject(record: Record<string, unknown>, names: Set<string>, budget: { nodes: number }, depth: number): void {
  if (isFindToolOutput(record)) {
    for (const tool of [...(record.activated as unknown[]), ...(record.already_available as unknown[])]) {
      const name = (tool as { name?: unknown } | null)?.name;
      if (typeof name === "string") names.add(name);
    }
  } else if (record.type === "tool_reference" && typeof record.tool_name === "string") {
    names.add(record.tool_name);
  } else if (record.type === "tool_search_output") {
    collectSearchTools(record.tools, names, 0);
  } else {
    for (const key of Object.keys(record)) walk(record[key], names, budget, depth + 1);
  }
}

/** The shape find_tool returns: `{ activated: [{ name }], already_available, not_found, message }`. */
function isFindToolOutput(record: Record<string, unknown>): boolean {
  return (
    Array.isArray(record.activated) &&
    Array.isArray(record.already_available) &&
    Array.isArray(record.not_found) &&
    typeof record.message === "string"
  );
}

function collectSearchTools(tools: unknown, names: Set<string>, depth: number): void {
  if (!Array.isArray(tools) || depth > 4) return;
  for (const tool of tools) {
    if (typeof tool !== "object" || tool === null) continue;
    const { type, name } = tool as { type?: unknown; name?: unknown };
    if (type === "function" && typeof name === "string") names.add(name);
    else if (type === "namespace") collectSearchTools((tool as { tools?: unknown }).tools, names, depth + 1);
  }
}
