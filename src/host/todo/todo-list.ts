import { createRunStorageKey, type RunStorageKey, ToolError } from "agent-tool-catalog";

/** Where a todo item stands. */
export type TodoStatus = "pending" | "in_progress" | "completed";

/** One item of a run's todo list. */
export interface TodoItem {
  /** Its number in the list, from 1; never reused. */
  readonly id: number;
  /** What to do. */
  readonly text: string;
  /** Its status. */
  readonly status: TodoStatus;
}

/** Items a list holds at most, so a looping model cannot grow it without bound. */
export const MAX_TODO_ITEMS = 100;

/** A run's todo list: the model's plan, kept in run storage so it lives exactly as long as the run. */
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
}

/** The run storage key of the todo list. */
export const TODO_LIST: RunStorageKey<TodoList> = createRunStorageKey("todo-list", () => new TodoList());
