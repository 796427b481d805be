// The worker thread that compiles and checks untrusted JSON Schemas (see schema-check-worker.ts):
// whatever a schema makes the validator do, it does it here, where the host can stop it.
// Built as its own file (dist/schema-check-thread.js and .cjs); never imported by the root.
import { parentPort } from "node:worker_threads";
import type { ValidateFunction } from "ajv";
import type { JsonSchema } from "./json-schema.js";
import { ALL_ERRORS_INPUT_LIMIT, JsonSchemaCompiler, validatorOf } from "./json-schema-validator.js";
import { estimateJsonSize } from "./json-size.js";
import type { SchemaCheckReply, SchemaCheckRequest } from "./schema-check-protocol.js";
import { ownThreadStatPath, readThreadCpuMs } from "./thread-cpu-time.js";
import type { ValidationOutcome } from "./validation-issue.js";

/**
 * Most compiled schemas kept; past it the oldest is dropped (the host sends it again when it is
 * called again).
 */
const MAX_SCHEMAS = 256;
/**
 * Compiles per set of validator instances. Instances are shared (a new one costs its meta-schema's
 * compile: 100-500 ms on a loaded machine), but each keeps something of every schema it compiled,
 * so a set is replaced after this many.
 */
const COMPILES_PER_COMPILER = 256;

const port = parentPort;
if (port === null) throw new Error("schema-check-thread runs as a worker thread only.");

const validators = new Map<number, (value: unknown) => ValidationOutcome>();
const sizeOf = (value: unknown) => estimateJsonSize(value, ALL_ERRORS_INPUT_LIMIT);
const send = (reply: SchemaCheckReply) => port.postMessage(reply);
let shared = new JsonSchemaCompiler();
let compiles = 0;
/** This thread's stat file: the host reads the CPU time it runs from there. */
const statPath = ownThreadStatPath();

/**
 * Both compiled forms of `schema` (compiled now, so that the compile's time limit covers them and
 * a check's covers only checking). The instances then forget the schema: two servers' schemas may
 * share an `$id`, which an instance refuses to hold twice.
 */
function compileBoth(schema: JsonSchema, compiler: JsonSchemaCompiler): [ValidateFunction, ValidateFunction] {
  const first = compiler.ajv(schema, false);
  const all = compiler.ajv(schema, true);
  try {
    return [first.compile(schema), all.compile(schema)];
  } finally {
    first.removeSchema(schema);
    all.removeSchema(schema);
  }
}

function compile(request: SchemaCheckRequest): ((value: unknown) => ValidationOutcome) | undefined {
  const { schema, id } = request;
  if (schema === undefined) return undefined;
  if (++compiles > COMPILES_PER_COMPILER) {
    shared = new JsonSchemaCompiler();
    compiles = 1;
  }
  let compiled: [ValidateFunction, ValidateFunction];
  try {
    compiled = compileBoth(schema, shared);
  } catch {
    // What an earlier schema left in the shared instances (a nested `$id`) may be the problem:
    // fresh instances decide.
    compiled = compileBoth(schema, new JsonSchemaCompiler());
  }
  const [first, all] = compiled;
  const validate = validatorOf(
    () => first,
    () => all,
    sizeOf,
  );
  if (validators.size >= MAX_SCHEMAS) validators.delete(validators.keys().next().value as number);
  validators.set(id, validate);
  return validate;
}

port.on("message", (request: SchemaCheckRequest) => {
  const { job, id } = request;
  let validate = validators.get(id);
  if (validate === undefined) {
    try {
      validate = compile(request);
    } catch (error) {
      send({ job, kind: "failed", stage: "compile", message: messageOf(error) });
      return;
    }
    if (validate === undefined) {
      send({ job, kind: "unknown" });
      return;
    }
    send({ job, kind: "compiled", cpuMs: statPath === undefined ? undefined : readThreadCpuMs(statPath) });
  }
  let outcome: ValidationOutcome;
  try {
    outcome = validate(request.value);
  } catch (error) {
    send({ job, kind: "failed", stage: "check", message: messageOf(error) });
    return;
  }
  send({ job, kind: "checked", issues: outcome.ok ? undefined : [...outcome.issues] });
});

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Load and warm the validator before saying ready (its meta-schema compiles with the first schema):
// the host's time limits count from ready, not from a cold start on a loaded machine.
compileBoth({ type: "object", properties: { warm: { type: "string" } } }, shared);
compileBoth({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" }, shared);
send({ kind: "ready", statPath });
