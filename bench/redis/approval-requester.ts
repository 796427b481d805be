// Bench helper process: makes `count` approval requests one after another through a
// RedisApprovalBroker and prints each round trip (request to decision) in ms, one JSON line.
// argv: redis url, prefix, count.
import { RedisApprovalBroker } from "agent-tool-catalog/redis";
import { Redis } from "ioredis";

const [url, prefix, count] = process.argv.slice(2) as [string, string, string];
const redis = new Redis(url);
const broker = new RedisApprovalBroker({ redis, prefix, timeoutMs: 30_000 });
const rounds: number[] = [];
for (let n = 0; n < Number(count); n++) {
  const started = performance.now();
  const resolution = await broker.request({
    runId: "bench",
    callId: String(n),
    toolName: "deploy",
    input: { n },
    mutating: true,
    policy: "destructive",
  });
  if (resolution.decision !== "approved") throw new Error(`request ${n} was ${resolution.decision}`);
  rounds.push(performance.now() - started);
}
console.log(JSON.stringify(rounds));
await broker.close();
redis.disconnect();
