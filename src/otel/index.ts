// OpenTelemetry tracing of a registry's runs. `@opentelemetry/api` is an optional peer dependency
// of this subpath only: importing the root entry never loads it.
export { type InstrumentationOptions, instrumentRegistry, OTEL_NAMES, type RedactionKind } from "./instrument-registry.js";
