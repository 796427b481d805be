import { createRunStorageKey, type RunStorageKey, ToolError } from "agent-tool-catalog";

/**
 * Where a todo item stands.
 *
 * @public
 */
export type TodoStatus = "pending" | "in_progress" | "completed";

/**
 * One item of a run's todo list.
 *
 * @public
 */
export interface TodoItem {
  /** Its number in the list, from 1; never reused. */
  readonly id: number;
  /** What to do. */
  readonly text: string;
  /** Its status. */
  readonly status: TodoStatus;
}

/**
 * Items a list holds at most, so a looping model cannot grow it without bound.
 *
 * @public
 */
export const MAX_TODO_ITEMS = 100;

/**
 * A run's todo list: the model's plan, kept in run storage so it lives exactly as long as the run.
 *
 * @public
 */
export class TodoList {
  private readonly items: TodoItem[] = [];
  private nextId = 1;

  /** Adds items as pending. */
  add(texts: readonly string[]): TodoItem[] {
    if (this.items.length + texts.length > MAX_TODO_ITEMS) {
      throw new ToolError(
        "too_many_todos",
        `The list would hold ${this.items.length + texts.length} items; the limit is ${MAX_TODO_ITEMS}.`,
        {
          hint: "Complete or merge items first.",
        },
      );
    }
    const added = texts.map((text) => ({ id: this.nextId++, text, status: "pending" as const }));
    this.items.push(...added);
    return added;
  }

  /** Changes an item's text or status. */
  update(id: number, change: { readonly text?: string | undefined; readonly status?: TodoStatus | undefined }): TodoItem {
    const index = this.items.findIndex((item) => item.id === id);
    const item = this.items[index];
    if (item === undefined) {
      throw new ToolError("unknown_todo", `There is no todo item ${id}.`, {
        hint: 'Call todo with {"action":"list"} for the ids.',
      });
    }
    const updated: TodoItem = { id, text: change.text ?? item.text, status: change.status ?? item.status };
    this.items[index] = updated;
    return updated;
  }

  /** The items, in the order they were added. */
  list(): readonly TodoItem[] {
    return [...this.items];
  }

  /** The list as saved with the run (`run.toJSON()`). */
  toJSON(): { readonly items: readonly TodoItem[]; readonly nextId: number } {
    return { items: this.list(), nextId: this.nextId };
  }

  /** Rebuilds a list saved by {@link TodoList.toJSON}; throws on anything else. */
  static fromJSON(saved: unknown): TodoList {
    const candidate = saved as { items?: unknown; nextId?: unknown } | null;
    const statuses: readonly unknown[] = ["pending", "in_progress", "completed"];
    if (
      typeof candidate !== "object" ||
      candidate === null ||
      !Number.isInteger(candidate.nextId) ||
      !Array.isArray(candidate.items) ||
      candidate.items.length > MAX_TODO_ITEMS ||
      !candidate.items.every(
        (item: { id?: unknown; text?: unknown; status?: unknown } | null) =>
          typeof item === "object" &&
          item !== null &&
          Number.isInteger(item.id) &&
          typeof item.text === "string" &&
          statuses.includes(item.status),
      )
    ) {
      throw new TypeError("not a saved todo list");
    }
    const list = new TodoList();
    list.items.push(...(candidate.items as TodoItem[]).map((item) => ({ id: item.id, text: item.text, status: item.status })));
    list.nextId = candidate.nextId as number;
    return list;
  }
}

/**
 * The run storage key of the todo list; it is saved with the run (`run.toJSON()`).
 *
 * @public
 */
export const TODO_LIST: RunStorageKey<TodoList> = createRunStorageKey("todo-list", () => new TodoList(), {
  save: (list) => list.toJSON(),
  load: (saved) => TodoList.fromJSON(saved),
});
