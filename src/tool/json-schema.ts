/**
 * A JSON Schema (draft 2020-12 or draft-07) as a plain object. Only the keys this library reads
 * are typed; everything else passes through untouched.
 * @public
 */
export interface JsonSchema {
  /** The JSON type. A tool's input schema must be `"object"`. */
  readonly type?: string | readonly string[];
  /** Object properties. */
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  /** Required property names. */
  readonly required?: readonly string[];
  /** A description of the value. */
  readonly description?: string;
  /** Any other JSON Schema keyword. */
  readonly [keyword: string]: unknown;
}

/**
 * A JSON Schema whose `type` is `"object"`: the shape of every tool input.
 *
 * @public
 */
export interface JsonObjectSchema extends JsonSchema {
  /** Always `"object"`. */
  readonly type: "object";
}
