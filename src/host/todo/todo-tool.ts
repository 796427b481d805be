import { type AnyToolDefinition, defineTool, ToolError, type ToolGroup } from "agent-tool-catalog";
import { lazySchemas } from "../shared/lazy-zod.js";
import { TODO_LIST, type TodoItem } from "./todo-list.js";

const schemas = lazySchemas((z) => {
  const todoInput = z.object({
    action: z.enum(["add", "update", "complete", "list"]).describe("add items, update one, mark one complete, or list them"),
    items: z.array(z.string().trim().min(1).max(500)).min(1).max(50).optional().describe("For add: the items' texts"),
    id: z.number().int().min(1).optional().describe("For update and complete: the item's id"),
    text: z.string().trim().min(1).max(500).optional().describe("For update: the new text"),
    status: z.enum(["pending", "in_progress", "completed"]).optional().describe("For update: the new status"),
  });
  return { todoInput };
});

const MARKS: Record<TodoItem["status"], string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

function render(items: readonly TodoItem[]): string {
  if (items.length === 0) return "The todo list is empty.";
  const done = items.filter((item) => item.status === "completed").length;
  return [`Todo (${done}/${items.length} done):`, ...items.map((item) => `${MARKS[item.status]} ${item.id}. ${item.text}`)].join(
    "\n",
  );
}

function required<Value>(value: Value | undefined, field: string, action: string): Value {
  if (value === undefined) {
    throw new ToolError("invalid_input", `action "${action}" needs ${field}.`, { data: { field } });
  }
  return value;
}

/**
 * `todo`: the run's plan as a checklist, in run storage (`add`, `update`, `complete`, `list`).
 *
 * @public
 */
export function createTodoTool(): AnyToolDefinition {
  return defineTool({
    name: "todo",
    description:
      "Keep a todo list for this task: add items, update one (text or status), complete one, or list them. Returns the whole list.",
    inputSchema: schemas().todoInput,
    tier: "core",
    annotations: { title: "Todo list" },
    tags: ["builtin", "todo", "plan", "checklist", "tasks", "progress"],
    handler: (input, context) => {
      const list = context.storage.get(TODO_LIST);
      switch (input.action) {
        case "add":
          list.add(required(input.items, "items", "add"));
          break;
        case "update":
          if (input.text === undefined && input.status === undefined) required(undefined, "text or status", "update");
          list.update(required(input.id, "id", "update"), { text: input.text, status: input.status });
          break;
        case "complete":
          list.update(required(input.id, "id", "complete"), { status: "completed" });
          break;
        case "list":
          break;
      }
      return render(list.list());
    },
  });
}

/**
 * `todo` as a group; it needs nothing from the host, so it is always present.
 *
 * @public
 */
export function todoToolGroup(): ToolGroup {
  return { name: "todo", tools: () => [createTodoTool()] };
}
