import type { CronJob } from "agent-tool-catalog/host";
import { BullMqCronScheduler } from "agent-tool-catalog/redis";

/**
 * A BullMQ cron scheduler under `prefix` holding one shell job, `nightly`, due once a year (so it
 * never fires during a test) and whose shell never runs: the real record beside the records a test
 * plants. The caller closes the scheduler; it is closed here when the job cannot be made.
 */
export async function schedulerWithOneJob(
  connection: { host: string; port: number; maxRetriesPerRequest: null },
  prefix: string,
): Promise<{ scheduler: BullMqCronScheduler; job: CronJob }> {
  const scheduler = new BullMqCronScheduler({ connection, prefix, runShell: async () => ({ exitCode: 0, output: "" }) });
  try {
    const job = await scheduler.create({
      name: "nightly",
      schedule: "0 0 1 1 *",
      executionType: "shell",
      command: "true",
      timeoutSeconds: 30,
      conversationId: "c",
    });
    return { scheduler, job };
  } catch (error) {
    await scheduler.close();
    throw error;
  }
}
