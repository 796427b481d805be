// Test helpers for hosts: scripted fake models and a tool loop to drive a run in unit tests.

export { expectCalled, expectToolsHidden, expectToolsVisible } from "./assertions.js";
export type { LoopMessage, LoopModel, ModelRequest, ModelToolCall, ModelTurn } from "./model-turn.js";
export {
  type LoopTranscript,
  type RecordedCall,
  type RecordedTurn,
  type RunToolLoopOptions,
  runToolLoop,
} from "./run-tool-loop.js";
export { ScriptedModel, type ScriptedStep, ScriptMismatchError } from "./scripted-model.js";
