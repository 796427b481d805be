/** What JSON leaves out as an object's member, and writes as `null` in an array. */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** Leaves an object's or array's place on the path (the cycle check). */
interface Leave {
  readonly leave: object;
}

/** A value to write: in an array (`null` for what JSON leaves out), or a member already known to be written. */
interface Write {
  readonly write: unknown;
}

/**
 * Pushes the tasks that write `item`'s brackets and members, in reverse: the stack gives them back
 * in writing order.
 */
function pushMembers(item: object, sortKeys: boolean, tasks: (string | Leave | Write)[]): void {
  if (Array.isArray(item)) {
    tasks.push("]");
    for (let index = item.length - 1; index >= 0; index--) {
      tasks.push({ write: item[index] });
      if (index > 0) tasks.push(",");
    }
    tasks.push("[");
    return;
  }
  const record = item as Record<string, unknown>;
  const own = Object.keys(record);
  const keys = (sortKeys ? own.sort() : own).filter((key) => !omitted(record[key]));
  tasks.push("}");
  for (let index = keys.length - 1; index >= 0; index--) {
    const key = keys[index] as string;
    tasks.push({ write: record[key] });
    tasks.push(`${index > 0 ? "," : ""}${JSON.stringify(key)}:`);
  }
  tasks.push("{");
}

/**
 * The JSON text of `value`, with every object's keys sorted (`Array.prototype.sort`'s order) when
 * `sortKeys`, as `JSON.stringify` writes a copy of it made of its own members: each non-array
 * object is written as its own enumerable string keys (a `Date` or a boxed string as `{}` or its
 * index keys, as such a copy has them; no `toJSON` is called), members JSON leaves out
 * (`undefined`, a function, a symbol) are left out, and written as `null` in arrays. For JSON data
 * (what `JSON.parse` gives) that is `JSON.stringify`'s text, keys sorted or not. Walked with an
 * explicit stack, so any depth `JSON.parse` gives is written: `JSON.stringify` and recursive
 * copies overflow the stack at some thousands of levels (round 46).
 *
 * @throws TypeError for a cycle (as `JSON.stringify`), or a BigInt
 */
export function jsonText(value: unknown, sortKeys: boolean): string {
  const parts: string[] = [];
  const onPath = new Set<object>();
  const tasks: (string | Leave | Write)[] = [{ write: value }];
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    if (typeof task === "string") {
      parts.push(task);
      continue;
    }
    if ("leave" in task) {
      onPath.delete(task.leave);
      continue;
    }
    const item = task.write;
    if (omitted(item)) {
      parts.push("null");
      continue;
    }
    if (typeof item !== "object" || item === null) {
      // Strings, numbers (NaN and Infinity as null, -0 as 0), booleans, null; a BigInt throws.
      parts.push(JSON.stringify(item));
      continue;
    }
    if (onPath.has(item)) throw new TypeError("Converting circular structure to JSON");
    onPath.add(item);
    tasks.push({ leave: item });
    pushMembers(item, sortKeys, tasks);
  }
  return parts.join("");
}

/**
 * `JSON.stringify(value)`, or, for a value nested deeper than it walks (arguments parsed from a
 * model's string nest to any depth), the same text written without recursion.
 * `undefined` where `JSON.stringify` gives it (nothing to write). Event payloads and approval
 * requests carry arguments as the model sent them, which a `{ type: "object" }` tool takes at any
 * depth: a listener or approval page that writes them with `JSON.stringify` overflows the stack
 * past a few thousand levels; this writes them all. (Exported from the root also so that the
 * subpaths share the root's copy: bundled into each, it became one more file the root loads.)
 *
 * @throws TypeError as `JSON.stringify` (a cycle, a BigInt)
 * @public
 */
export function jsonAtAnyDepth(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return jsonText(value, false);
  }
}
