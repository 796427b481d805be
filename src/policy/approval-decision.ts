// What a decision on an approval request answers, shared by the in-memory and Redis brokers so a
// host reads the same reasons from both (a bare `false` said nothing of why).
import type { ApprovalRequest } from "../events/approval-events.js";
import { nodeBuiltin } from "../tool/node-builtin.js";
import { jsonText } from "./json-text.js";

/**
 * Why a decision was not taken:
 * - `"unknown"`: no such request (never made, or forgotten: the in-memory broker remembers the
 *   last 10,000 decided ids, Redis keeps a decided request for its retention time);
 * - `"decided"`: someone decided it already (a person, or the call's abort);
 * - `"expired"`: its deadline passed, and it was denied for that (`resolvedBy: "timeout"`);
 * - `"digest_mismatch"`: `argumentsDigest` was given and the request is for other arguments (it
 *   stays pending);
 * - `"input_truncated"`: an approval of a request whose stored input was cut, without
 *   `inputTruncatedSeen` (Redis only: it stays pending).
 *
 * @public
 */
export type ApprovalDecisionRefusal = "unknown" | "decided" | "expired" | "digest_mismatch" | "input_truncated";

/**
 * The answer of a broker's `decide`: taken, or refused with the reason.
 *
 * @public
 */
export type ApprovalDecisionResult = { readonly ok: true } | { readonly ok: false; readonly reason: ApprovalDecisionRefusal };

/**
 * Options of a broker's `decide`.
 *
 * @public
 */
export interface ApprovalDecideOptions {
  /** `"denied"` only: the reason the model reads. @defaultValue "denied by the user" */
  readonly reason?: string;
  /**
   * Decide only if the request is for exactly these arguments (what the person saw): the value of
   * {@link approvalArgumentsDigest} for the request they were shown.
   */
  readonly argumentsDigest?: string;
  /**
   * `"approved"` only: the approver was shown that the request's stored input was cut
   * (`inputTruncated`, Redis) and approves it anyway.
   * @defaultValue false
   */
  readonly inputTruncatedSeen?: boolean;
}

interface CryptoBuiltin {
  createHash(algorithm: string): { update(data: string): { digest(encoding: "hex"): string } };
}

/**
 * The digest a decision is bound to: SHA-256 (hex) of a call's run id, call id, tool name and
 * input (object keys sorted, so key order does not matter). The same on every broker.
 *
 * @example
 * ```ts
 * import { approvalArgumentsDigest } from "agent-tool-catalog";
 *
 * const digest = approvalArgumentsDigest({ runId: "r1", callId: "c1", toolName: "deploy", input: { target: "prod" } });
 * console.log(digest.length); // 64
 * ```
 * @public
 */
export function approvalArgumentsDigest(request: Pick<ApprovalRequest, "runId" | "callId" | "toolName" | "input">): string {
  // Reached at the call, not imported: the root entry imports no `node:` module.
  const crypto = nodeBuiltin<CryptoBuiltin>("crypto");
  if (crypto === undefined) throw new Error("approvalArgumentsDigest needs Node.js 20.16 or later (process.getBuiltinModule).");
  // Written as `JSON.stringify([runId, callId, toolName, input with keys sorted])` writes it (the
  // digest of earlier versions), without recursion: arguments nest to any depth.
  const head = JSON.stringify([request.runId, request.callId, request.toolName]).slice(0, -1);
  const canonical = `${head},${jsonText(request.input, true)}]`;
  return crypto.createHash("sha256").update(canonical).digest("hex");
}
