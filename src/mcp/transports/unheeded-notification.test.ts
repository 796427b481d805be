import { afterEach, describe, expect, it, vi } from "vitest";
import { malformedEventFetch } from "./malformed-event-fetch.js";
import { isUnheededNotification, notificationTextMethod } from "./unheeded-notification.js";

afterEach(() => {
  vi.restoreAllMocks();
});

const PROGRESS = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":3}}';

describe("notificationTextMethod", () => {
  it("names the method of notifications as servers write them, with or without params and spaces", () => {
    expect(notificationTextMethod(PROGRESS)).toBe("notifications/progress");
    expect(notificationTextMethod('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}')).toBe(
      "notifications/tools/list_changed",
    );
    expect(notificationTextMethod('{"jsonrpc": "2.0", "method": "x/y", "params": {"a": [1, {"b": 2}]}}')).toBe("x/y");
  });

  // Each of these parses to something that is not a plain notification, or whose method is not the
  // one the text starts with: the text check must leave every one to the parser.
  const tricky = [
    `${PROGRESS.slice(0, -1)},"id":7}`,
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{},"\\u0069d":7}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{},"method":"notifications/cancelled"}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{},"jsonrpc":"1.0"}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"a":1},"params":[1]}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":[1]}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"s":"\\"},\\"id\\":1,\\"x\\":{\\""}}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"a":{}},"id":1,"b":{}}',
    '{"jsonrpc":"2.0","method":"sampling/createMessage","id":1,"params":{}}',
  ];
  for (const text of tricky) {
    it(`leaves ${text} to the parser`, () => {
      expect(notificationTextMethod(text)).toBeUndefined();
    });
  }

  it("never calls unheeded what the parser would not", () => {
    for (const text of [PROGRESS, ...tricky]) {
      const method = notificationTextMethod(text);
      if (method === undefined) continue;
      expect(isUnheededNotification(JSON.parse(text)), text).toBe(method !== "notifications/tools/list_changed");
    }
  });
});

/** A fetch answering with an event stream of `chunks`. */
function streamOf(chunks: readonly string[]): typeof fetch {
  const encoder = new TextEncoder();
  return (async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
          controller.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )) as typeof fetch;
}

async function textOf(response: Response): Promise<string> {
  return new TextDecoder().decode(await response.arrayBuffer());
}

describe("the event stream filter on a notification flood", () => {
  it("drops 100,000 progress notifications without parsing each, and passes the answer and one list_changed a chunk", async () => {
    const event = (data: string) => `event: message\ndata: ${data}\n\n`;
    const listChanged = event('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}');
    const answer = event('{"jsonrpc":"2.0","id":1,"result":{"content":[]}}');
    const chunks: string[] = [];
    for (let chunk = 0; chunk < 100; chunk++) {
      chunks.push(listChanged + event(PROGRESS).repeat(1000) + listChanged);
    }
    chunks.push(answer);
    const parse = vi.spyOn(JSON, "parse");
    const text = await textOf(await malformedEventFetch(streamOf(chunks))("http://127.0.0.1/mcp"));
    // The old filter parsed every event (100,201 parses); now the answer and each chunk's first
    // list_changed (which goes on to the SDK) are parsed.
    expect(parse.mock.calls.length).toBeLessThan(250);
    expect(text).not.toContain("notifications/progress");
    expect(text.split("list_changed").length - 1).toBe(100);
    expect(text.endsWith(answer)).toBe(true);
  });
});
