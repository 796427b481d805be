import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type ClientCapabilities,
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  type ElicitResult,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * Who asks, for a handler: the server, the run it belongs to, and the request's signal.
 *
 * @public
 */
export interface McpClientRequestContext {
  /** The server's name. */
  readonly server: string;
  /** The run the server is private to, if any. */
  readonly runId: string | undefined;
  /** Aborted when the server cancels the request or the connection closes. */
  readonly signal: AbortSignal;
}

/**
 * A `sampling/createMessage` request: the server asks the host's model for a completion.
 *
 * @public
 */
export type McpSamplingRequest = CreateMessageRequest["params"];
/**
 * A form-mode `elicitation/create` request: the server asks the user to fill in a small form.
 *
 * @public
 */
export type McpElicitationRequest = ElicitRequestFormParams;
/**
 * A root the server may work in: a `file://` URI and a name.
 *
 * @public
 */
export interface McpRoot {
  /** A `file://` URI. */
  readonly uri: string;
  /** A name to show. */
  readonly name?: string;
}

/**
 * What the host lets servers ask of it. Each capability is declared in `initialize` only when its
 * handler is given (servers such as the reference "everything" server list the tools that need it
 * only then); a server never gets a capability the host did not grant.
 * @public
 */
export interface McpClientHandlers {
  /**
   * Answers `sampling/createMessage` with the host's model. The host pays for it and decides
   * (a callback may ask the user first, cap `maxTokens`, or refuse by throwing).
   * See `mcpSamplingFromAiSdk` for an AI SDK model.
   */
  readonly sampling?: (request: McpSamplingRequest, context: McpClientRequestContext) => Promise<CreateMessageResult>;
  /**
   * Answers form-mode `elicitation/create` with the user's input (`accept` with `content`), or
   * `decline` / `cancel`. See `mcpElicitationFromQuestionBroker` for the `AskUserQuestion` broker.
   */
  readonly elicitation?: (request: McpElicitationRequest, context: McpClientRequestContext) => Promise<ElicitResult>;
  /**
   * The roots the server may work in. For a server connected with `{ run }`, the run's workspace
   * is the default; `false` declares no roots.
   */
  readonly roots?: readonly McpRoot[] | (() => readonly McpRoot[] | Promise<readonly McpRoot[]>) | false;
}

/**
 * The roots of a workspace directory.
 *
 * @public
 */
export function workspaceRoots(workspace: string): McpRoot[] {
  return [{ uri: pathToFileURL(workspace).href, name: "workspace" }];
}

/** The capabilities the handlers declare. */
export function clientCapabilities(handlers: McpClientHandlers): ClientCapabilities {
  return {
    ...(handlers.sampling === undefined ? {} : { sampling: {} }),
    ...(handlers.elicitation === undefined ? {} : { elicitation: { form: {} } }),
    ...(handlers.roots === undefined || handlers.roots === false ? {} : { roots: { listChanged: true } }),
  };
}

/** Installs the handlers' request handlers on a client built with {@link clientCapabilities}. */
export function installClientHandlers(
  client: Client,
  handlers: McpClientHandlers,
  who: { readonly server: string; readonly runId: string | undefined },
): void {
  const { sampling, elicitation, roots } = handlers;
  if (sampling !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      guard("sampling", () => sampling(request.params, { ...who, signal: extra.signal })),
    );
  }
  if (elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      const params = request.params;
      // Only the form mode is declared; a URL elicitation sent anyway is declined, not followed.
      if (params.mode === "url") return { action: "decline" };
      return guard("elicitation", () => elicitation(params, { ...who, signal: extra.signal }));
    });
  }
  if (roots !== undefined && roots !== false) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      const list = typeof roots === "function" ? await roots() : roots;
      return { roots: list.map((root) => ({ ...root })) };
    });
  }
}

// The server gets a plain MCP error, never the host's stack or message internals.
async function guard<T>(what: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (error instanceof McpError) throw error;
    throw new McpError(ErrorCode.InternalError, `The client could not complete the ${what} request.`);
  }
}
