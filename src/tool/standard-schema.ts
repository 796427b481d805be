/**
 * The Standard Schema interface (standardschema.dev), declared here so that zod 3.24+, zod 4,
 * valibot, arktype and others are accepted without depending on any of them.
 * @public
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

/**
 * Types of the Standard Schema interface.
 *
 * @public
 */
export declare namespace StandardSchemaV1 {
  /** The properties a Standard Schema exposes. */
  interface Props<Input = unknown, Output = Input> {
    /** The version of the interface. */
    readonly version: 1;
    /** The library that made the schema. */
    readonly vendor: string;
    /** Validates a value. */
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    /** Inferred types (type-level only). */
    readonly types?: Types<Input, Output> | undefined;
  }
  /** The result of `validate`. */
  type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A successful validation. */
  interface SuccessResult<Output> {
    /** The parsed value. */
    readonly value: Output;
    /** Absent on success. */
    readonly issues?: undefined;
  }
  /** A failed validation. */
  interface FailureResult {
    /** What is wrong. */
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One validation issue. */
  interface Issue {
    /** What is wrong, in words. */
    readonly message: string;
    /** Where, as a list of keys. */
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** A path segment given as an object. */
  interface PathSegment {
    /** The key. */
    readonly key: PropertyKey;
  }
  /** Inferred input and output types. */
  interface Types<Input = unknown, Output = Input> {
    /** The input type. */
    readonly input: Input;
    /** The output type. */
    readonly output: Output;
  }
  /** The output type of a schema. */
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}
