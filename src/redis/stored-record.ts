import { ConfigurationError } from "agent-tool-catalog";

/**
 * A record this package stored as JSON, read back, or `undefined` when it is not one: not JSON,
 * not an object, or one of `textFields` not a string. A record another program (or a version that
 * wrote another format) left among the ones a listing reads made the whole listing throw (a bare
 * `SyntaxError`, or a `TypeError` further on), so one such entry hid every other: callers leave it
 * out and list the rest.
 */
export function readStoredRecord<T>(json: string, textFields: readonly string[]): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  return textFields.every((field) => typeof fields[field] === "string") ? (value as T) : undefined;
}

/** {@link readStoredRecord} of each of `jsons` (`null`s, missing records, skipped), unreadable ones left out. */
export function readStoredRecords<T>(jsons: readonly (string | null)[], textFields: readonly string[]): T[] {
  const out: T[] = [];
  for (const json of jsons) {
    if (json === null) continue;
    const record = readStoredRecord<T>(json, textFields);
    if (record !== undefined) out.push(record);
  }
  return out;
}

/**
 * {@link readStoredRecord} of the one record a read asked for (a callback's or cron job's `get`,
 * a job's snapshot, a checkpoint): a record this package did not write is a
 * `ConfigurationError` `invalid_stored_record` naming the key, not a bare `SyntaxError` (or a
 * `TypeError` further on, or a record taken as valid with fields missing).
 * @param key - the Redis key (and hash field) the record was read from, for the message
 */
export function parseStoredRecord<T>(json: string, textFields: readonly string[], key: string): T {
  const record = readStoredRecord<T>(json, textFields);
  if (record === undefined) throw unreadableStoredRecord(key);
  return record;
}

/** The error of a stored record that cannot be read; `key` names where it is. */
export function unreadableStoredRecord(key: string): ConfigurationError {
  return new ConfigurationError(
    "invalid_stored_record",
    `The record at Redis key ${JSON.stringify(key)} is not one this library stored (not JSON, or fields missing); it was left as it is.`,
    { data: { field: "record", key } },
  );
}

/**
 * What a script answers for a record {@link READ_STORED_RECORD_LUA} could not read; the caller
 * throws {@link unreadableStoredRecord}.
 */
export const UNREADABLE_RECORD_REPLY = "!unreadable-record";

/**
 * Lua defining `readRecord(json, field...)`: the table `json` decodes to, or `nil` when it is not a
 * record this package stored (the judgement of {@link readStoredRecord}: a JSON object whose named
 * fields are strings). Scripts that change a record in place (claim a callback, end it, change a
 * cron job's status) decoded it with a bare `cjson.decode`: one record another program wrote made
 * the call fail with Redis's own `ReplyError` (a Lua error, or "attempt to compare nil") instead of
 * `invalid_stored_record` naming the key, as a plain read of the same record answers.
 */
export const READ_STORED_RECORD_LUA = `
local function readRecord(json, ...)
  local ok, record = pcall(cjson.decode, json)
  if not ok or type(record) ~= 'table' then return nil end
  for _, field in ipairs({...}) do
    if type(record[field]) ~= 'string' then return nil end
  end
  return record
end
`;

/** Whether `error` is {@link unreadableStoredRecord}'s: a record that stays unreadable, not worth retrying. */
export function isUnreadableStoredRecord(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "invalid_stored_record";
}
