// Red team round 28: one of two processes deciding the same approval requests at once. It lists
// the pending requests of a Redis approval broker, waits for the test's "go" (a token BLPOPed from
// `goKey`, pushed for both deciders at once), then approves (or denies) each request bound to the
// digest it listed, and prints one JSON line: { <request id>: <what approve/deny answered> }.
// argv: redis url, prefix, "approve" | "deny", go key, expected request count.
import { Redis } from "ioredis";
import { loadEntry } from "../../support/load-entry.mjs";

const { RedisApprovalBroker } = await loadEntry("redis/index");

const [url, prefix, decision, goKey, expected] = process.argv.slice(2);
const redis = new Redis(url);
const broker = new RedisApprovalBroker({ redis, prefix });
try {
  const requests = await broker.pending();
  if (requests.length !== Number(expected)) throw new Error(`listed ${requests.length} requests, expected ${expected}`);
  console.log(JSON.stringify({ ready: true }));
  await redis.blpop(goKey, 30);
  const answers = await Promise.all(
    requests.map((request) =>
      decision === "approve"
        ? broker.approve(request.id, { argumentsDigest: request.argumentsDigest })
        : broker.deny(request.id, `denied by the ${decision} process`, { argumentsDigest: request.argumentsDigest }),
    ),
  );
  console.log(JSON.stringify(Object.fromEntries(requests.map((request, index) => [request.id, answers[index]]))));
} finally {
  await broker.close();
  redis.disconnect();
}
