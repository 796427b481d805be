// The messages between the host and the thread that compiles and checks untrusted JSON Schemas
// (schema-check-thread.ts). Plain data only: they cross threads by structured clone.
import type { JsonSchema } from "./json-schema.js";
import type { ValidationIssue } from "./validation-issue.js";

/** Host to thread: check `value` against schema `id`, compiling it first when the thread lacks it. */
export interface SchemaCheckRequest {
  /** The job's number, echoed in every reply. */
  readonly job: number;
  /** The schema's number, unique per host (package copy). */
  readonly id: number;
  /** The schema, sent only when this thread has not compiled it yet. */
  readonly schema: JsonSchema | undefined;
  /** The arguments to check. */
  readonly value: unknown;
}

/** Thread to host. */
export type SchemaCheckReply =
  /**
   * The thread loaded its validator and takes jobs. `statPath`: its /proc stat file, from which
   * the host reads the CPU time it ran (Linux; absent elsewhere, where limits count wall time).
   */
  | { readonly kind: "ready"; readonly statPath: string | undefined }
  /**
   * The schema compiled; checking starts (its own time limit starts now). `cpuMs`: the thread's
   * CPU time as compiling ended, the start of the check's (absent without a stat file).
   */
  | { readonly job: number; readonly kind: "compiled"; readonly cpuMs: number | undefined }
  /** The check's outcome. */
  | { readonly job: number; readonly kind: "checked"; readonly issues: readonly ValidationIssue[] | undefined }
  /** The thread does not hold schema `id` (it dropped it, or never had it) and no schema came. */
  | { readonly job: number; readonly kind: "unknown" }
  /** Compiling (an unresolvable `$ref`, a stack overflow) or checking threw. */
  | { readonly job: number; readonly kind: "failed"; readonly stage: SchemaCheckStage; readonly message: string };

/** What the thread was doing: compiling the schema, or checking arguments against it. */
export type SchemaCheckStage = "compile" | "check";
