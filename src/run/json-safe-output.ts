import { type NodeUtilTypes, nodeUtilTypes } from "./node-util-types.js";
import { OutputKeys } from "./output-keys.js";
import { pairSafeEnd, wellFormed } from "./well-formed-text.js";

/** What a value whose getter or `toJSON` throws becomes. */
const UNSERIALIZABLE = "[Unserializable]";

/** Deepest nesting kept in an output; deeper values are replaced by a marker. */
export const MAX_OUTPUT_DEPTH = 100;

/**
 * Most characters of JSON an output is converted to (an estimate, counted while converting).
 * Past it the rest of the output is left out with a marker: a handler returning
 * `new Array(2 ** 31)`, a 20 MB `Uint8Array` or millions of keys held the event loop for
 * minutes (every concurrent call, timer and signal with it) and could end in a string too long
 * for V8. Far above any useful condensed output, so ordinary outputs are unchanged.
 */
export const MAX_OUTPUT_CHARS = 8 * 1024 * 1024;

/** What replaces the part of an output past {@link MAX_OUTPUT_CHARS}. */
export const TRUNCATED_MARKER = "[... output truncated: over its size limit ...]";

/** An output made JSON-safe, or why it cannot be. */
export type JsonSafeOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/**
 * Makes a handler's output safe to serialise before the call is reported `ok: true`, so that
 * formatting results (`formatToolResult`, the adapters) never throws and loses a batch:
 * a BigInt becomes its decimal string, a boxed primitive its primitive (as JSON has it), an Error
 * its `name`, `message`, own `cause` and own enumerable properties (never its `stack`), a repeated
 * reference on the current path becomes
 * `"[Circular]"`, values JSON drops (functions, symbols, `undefined` in objects) are dropped,
 * `toJSON` is honoured, nesting deeper than {@link MAX_OUTPUT_DEPTH} becomes `"[Too deep]"`, and
 * a value whose getter or `toJSON` throws becomes `"[Unserializable]"` (the convention the
 * adapters use too). `undefined` stays where it was (JSON leaves it out). Only an output that
 * cannot even be inspected (a revoked proxy at the top) is unusable (`ok: false`). Past `maxChars`
 * characters of JSON the rest is left out with {@link TRUNCATED_MARKER} (under the key `"…"` in an
 * object). Strings and keys come out well-formed (a lone surrogate becomes U+FFFD): providers refuse
 * a request that holds one. No key is lost to that: a repaired key that another key of the object
 * already has is written with JSON escapes as text instead (`"a\\ud800"`), then numbered (see
 * `OutputKeys`), and a well-formed key always keeps its name. `mapText`, when given, rewrites
 * every string value and every key before it is counted, so what it returns is cut at `maxChars`
 * too and it is not called again once the budget is spent; keys it makes alike are numbered
 * (`"[secret] (2)"`), so no value is lost.
 */
export function toJsonSafe(
  output: unknown,
  maxChars: number = MAX_OUTPUT_CHARS,
  mapText?: (text: string) => string,
): JsonSafeOutcome {
  // Nested ones are dropped as JSON.stringify drops them; a whole output that is one is no data.
  if (typeof output === "function" || typeof output === "symbol") return { ok: false, reason: `a ${typeof output} is not data` };
  try {
    return { ok: true, value: convert(output, new Set(), 0, { left: maxChars, mapText }) };
  } catch (error) {
    let reason = "reading it threw";
    try {
      if (error instanceof Error && typeof error.message === "string")
        reason = `reading it threw: ${error.message.slice(0, 200)}`;
    } catch {
      // keep the generic reason
    }
    return { ok: false, reason };
  }
}

/** The characters of JSON still allowed; shared by the whole conversion. */
interface Budget {
  left: number;
  /** Rewrites each string value and key before it is counted and cut (the `redact` hook). */
  readonly mapText?: ((text: string) => string) | undefined;
}

function convert(value: unknown, onPath: Set<object>, depth: number, budget: Budget): unknown {
  switch (typeof value) {
    case "string":
      return spendOnString(budget.mapText === undefined ? value : budget.mapText(value), budget);
    case "boolean":
      budget.left -= 5;
      return value;
    case "number":
      budget.left -= 8;
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return spendOnString(value.toString(), budget);
    case "undefined":
    case "function":
    case "symbol":
      // Costed as the `null` an array prints for it, so a sparse array's holes count too.
      budget.left -= 4;
      return undefined;
  }
  budget.left -= 4;
  if (value === null) return null;
  const object = value as object;
  if (onPath.has(object)) return "[Circular]";
  if (depth >= MAX_OUTPUT_DEPTH) return "[Too deep]";
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (toJSON === Buffer.prototype.toJSON && Buffer.isBuffer(object)) {
    // Buffer's own toJSON copies every byte into an array first: 2 s for 30 MB, before any budget.
    onPath.add(object);
    const data = convertArray(object as unknown as readonly unknown[], onPath, depth + 1, budget);
    onPath.delete(object);
    return { type: "Buffer", data };
  }
  if (typeof toJSON === "function") {
    onPath.add(object);
    let converted: unknown;
    try {
      converted = convert(toJSON.call(object), onPath, depth + 1, budget);
    } catch {
      converted = UNSERIALIZABLE;
    }
    onPath.delete(object);
    return converted;
  }
  if (nodeUtilTypes?.isBoxedPrimitive(object) === true) {
    // JSON.stringify prints `new Number(5)` as `5` and `new String("ab")` as `"ab"`; walked as an
    // object one gave the model `{}` (or `{"0":"a","1":"b"}`). Read from the internal slot by the
    // prototype's own method, so no valueOf of the output's runs.
    const primitive = unboxed(object, nodeUtilTypes);
    if (primitive !== object) return convert(primitive, onPath, depth, budget);
  }
  onPath.add(object);
  let out: unknown;
  if (nodeUtilTypes?.isNativeError(object) === true) {
    out = convertError(object as Error, onPath, depth, budget);
  } else if (Array.isArray(object)) {
    out = convertArray(object, onPath, depth, budget);
  } else if (isMap(object)) {
    out = convertMap(object, onPath, depth, budget);
  } else if (isSet(object)) {
    out = convertArray(firstItems(Set.prototype.values.call(object), budget).map(symbolAsText), onPath, depth, budget);
  } else if (ArrayBuffer.isView(object) && !(object instanceof DataView)) {
    // JSON prints a typed array as an object keyed by index; Object.keys of a 20 MB one alone
    // allocates 20M strings, so its indexes are walked as numbers, within the budget.
    out = convertTypedArray(object as unknown as ArrayLike<number | bigint>, budget);
  } else {
    out = convertObject(object, onPath, depth, budget);
  }
  onPath.delete(object);
  return out;
}

/** A boxed number, string, boolean or BigInt's primitive (a boxed symbol stays an object, as JSON has it). */
function unboxed(object: object, slots: NodeUtilTypes): unknown {
  if (slots.isNumberObject(object)) return Number.prototype.valueOf.call(object);
  if (slots.isStringObject(object)) return String.prototype.valueOf.call(object);
  if (slots.isBooleanObject(object)) return Boolean.prototype.valueOf.call(object);
  if (slots.isBigIntObject(object)) return BigInt.prototype.valueOf.call(object);
  return object;
}

/**
 * An Error (of any realm) as its `name` and `message`, its own `cause`, then its own enumerable
 * properties: JSON.stringify prints an Error's own enumerable properties only, `{}` for
 * `new Error("disk full")`, so a handler returning one gave the model nothing. Its `stack` is not
 * given: it names the host's files.
 */
function convertError(error: Error, onPath: Set<object>, depth: number, budget: Budget): Record<string, unknown> {
  const own = new Set(Object.keys(error));
  const head: Record<string, unknown> = {};
  for (const key of ["name", "message", "cause"] as const) {
    if (own.has(key) || (key === "cause" && !Object.hasOwn(error, "cause"))) continue;
    try {
      head[key] = error[key];
    } catch {
      head[key] = UNSERIALIZABLE;
    }
  }
  const out = convertObject(head, onPath, depth, budget);
  for (const [key, value] of Object.entries(convertObject(error, onPath, depth, budget))) define(out, key, value);
  return out;
}

function convertObject(object: object, onPath: Set<object>, depth: number, budget: Budget): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  const keys = Object.keys(object);
  const names = budget.mapText === undefined ? new OutputKeys(keys) : new MappedKeys(budget.mapText);
  for (const key of keys) {
    if (budget.left <= 0) {
      define(copy, names.added("…"), TRUNCATED_MARKER);
      break;
    }
    const name = names.nameOf(key);
    budget.left -= name.length + 4;
    let original: unknown;
    let converted: unknown;
    try {
      original = (object as Record<string, unknown>)[key];
      converted = convert(original, onPath, depth + 1, budget);
    } catch {
      converted = UNSERIALIZABLE;
    }
    if (converted !== undefined || original === undefined) define(copy, name, converted);
  }
  return copy;
}

/**
 * The names the keys of one object are copied under when `mapText` (the `redact` hook) rewrites
 * text: a key is text the model reads as much as a value is (a map keyed by tokens, an
 * environment dump), so it goes through the hook too, made well-formed. Keys the hook makes alike
 * (two secrets both masked as `[secret]`) are numbered (`[secret] (2)`) so that no value is lost.
 * Each key is rewritten when it is reached, so the hook is not called past the budget.
 */
class MappedKeys {
  private readonly taken = new Set<string>();
  /**
   * Per wanted name, the number to try next: counting up from 2 again for each key would take
   * quadratic time when a hook masks thousands of keys to one text.
   */
  private readonly nextNumber = new Map<string, number>();

  constructor(private readonly mapText: (text: string) => string) {}

  nameOf(key: string): string {
    return this.claim(wellFormed(this.mapText(key)));
  }

  added(preferred: string): string {
    return this.claim(preferred);
  }

  private claim(wanted: string): string {
    let name = wanted;
    if (this.taken.has(name)) {
      // A numbered name may be taken already by a key that reads so literally: skipped, and the
      // count moves past it for good, so each name is skipped at most once.
      let count = this.nextNumber.get(wanted) ?? 2;
      do name = `${wanted} (${count++})`;
      while (this.taken.has(name));
      this.nextNumber.set(wanted, count);
    }
    this.taken.add(name);
    return name;
  }
}

// JSON.stringify prints a Map or a Set as `{}`: a handler returning one gave the model nothing, and
// no warning. They are branded by their internal slot (the prototype's own method throws for
// anything else, a Proxy of one included, which stays an object), and read with the prototype's
// own iterator, not a subclass's, so no code of the output runs to list them.

//
// The brand check throws for every other object, and a thrown exception costs microseconds: on
// every plain object of every output that made a 200,000-row result 45x slower to convert. So it
// runs only on objects that look like one (a Map's prototype on the chain, or the tag of a Map
// from another realm); a subclass that renames its tag is still found by the first test.

function isMap(object: object): object is Map<unknown, unknown> {
  return looksLike(object, Map, "[object Map]") && hasBrand(Map.prototype.has, object);
}

function isSet(object: object): object is Set<unknown> {
  return looksLike(object, Set, "[object Set]") && hasBrand(Set.prototype.has, object);
}

function looksLike(object: object, kind: MapConstructor | SetConstructor, tag: string): boolean {
  try {
    return object instanceof kind || Object.prototype.toString.call(object) === tag;
  } catch {
    // A revoked Proxy, or a hostile tag getter: not one we can read.
    return false;
  }
}

function hasBrand(has: (value: unknown) => boolean, object: object): boolean {
  try {
    has.call(object, undefined);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first items of an iterator that can fit in the budget, and one more when there are more
 * (so the conversion marks the cut): every item of an array or object costs at least 4
 * characters, so a Map or Set of millions of entries is not copied whole.
 */
function firstItems<T>(items: Iterator<T>, budget: Budget): T[] {
  const most = Math.floor(Math.max(0, budget.left) / 4) + 1;
  const out: T[] = [];
  for (let next = items.next(); !next.done && out.length < most; next = items.next()) out.push(next.value);
  return out;
}

/**
 * A symbol that is a Map key or a Set member, as its text (`"Symbol(id)"`): it is how the model
 * tells the entries apart, and in the array JSON makes of them a symbol printed as `null`. Symbols
 * elsewhere (object values and keys) are dropped, as JSON drops them.
 */
function symbolAsText<T>(item: T): T | string {
  return typeof item === "symbol" ? `Symbol(${item.description ?? ""})` : item;
}

/**
 * A Map as an object when every key is a string or a number and no two print alike (`1` and
 * `"1"`), else as an array of `[key, value]` pairs (a symbol key as its text), so that no entry is
 * lost.
 */
function convertMap(map: Map<unknown, unknown>, onPath: Set<object>, depth: number, budget: Budget): unknown {
  const entries = firstItems(Map.prototype.entries.call(map), budget);
  const names = new Set<string>();
  for (const [key] of entries) {
    if (typeof key !== "string" && typeof key !== "number") break;
    const name = String(key);
    if (names.has(name)) break;
    names.add(name);
  }
  if (names.size < entries.length) {
    const pairs = entries.map(([key, value]) => [symbolAsText(key), value]);
    return convertArray(pairs, onPath, depth, budget);
  }
  const record: Record<string, unknown> = {};
  for (const [key, value] of entries) define(record, String(key), value);
  return convertObject(record, onPath, depth, budget);
}

function convertArray(array: readonly unknown[], onPath: Set<object>, depth: number, budget: Budget): unknown[] {
  const out: unknown[] = [];
  // An index loop, not map: map visits every index of a sparse array, 2^31 of them for `new Array(2 ** 31)`.
  const length = array.length;
  for (let index = 0; index < length; index++) {
    if (budget.left <= 0) {
      out.push(TRUNCATED_MARKER);
      break;
    }
    budget.left -= 1;
    out.push(convert(array[index], onPath, depth + 1, budget));
  }
  return out;
}

function convertTypedArray(view: ArrayLike<number | bigint>, budget: Budget): Record<string, unknown> {
  const copy: Record<number | string, unknown> = {};
  const length = view.length;
  for (let index = 0; index < length; index++) {
    if (budget.left <= 0) {
      copy["…"] = TRUNCATED_MARKER;
      break;
    }
    // The quoted index, colon and comma.
    budget.left -= 10;
    const item = view[index];
    copy[index] = typeof item === "bigint" ? spendOnString(item.toString(), budget) : convert(item, new Set(), 0, budget);
  }
  return copy;
}

/**
 * `text` cut at `maxChars` characters with {@link TRUNCATED_MARKER}, well-formed: a single text
 * held to the cap an output's JSON has (what the `redact` hook is given, and what it returns).
 */
export function capText(text: string, maxChars: number = MAX_OUTPUT_CHARS): string {
  return spendOnString(text, { left: maxChars });
}

function spendOnString(text: string, budget: Budget): string {
  const room = Math.max(0, budget.left);
  budget.left -= text.length + 2;
  return wellFormed(text.length <= room ? text : `${text.slice(0, pairSafeEnd(text, room))}${TRUNCATED_MARKER}`);
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  // Assignment is twice as fast; only "__proto__" needs defining, as assigning it sets the prototype.
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** True when a value needs no conversion: JSON.stringify gives the same text. Cheap pre-check. */
export function isPlainJsonScalar(value: unknown): boolean {
  return (
    typeof value === "string" ||
    typeof value === "boolean" ||
    value === null ||
    (typeof value === "number" && Number.isFinite(value))
  );
}
