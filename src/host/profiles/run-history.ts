/**
 * One finished run, as the efficiency report counts it.
 *
 * @public
 */
export interface ProfileRunRecord {
  /** The agent profile it ran under. */
  readonly profile: string;
  /** When it started (ms since the epoch). */
  readonly startedAt: number;
  /** How long it took. */
  readonly durationMs: number;
  /** Model turns. */
  readonly steps: number;
  /** Tool calls. */
  readonly toolCalls: number;
  /** Prompt tokens. */
  readonly inputTokens: number;
  /** Completion tokens. */
  readonly outputTokens: number;
  /** Whether it reached its goal. */
  readonly succeeded: boolean;
}

/**
 * Which records to read.
 *
 * @public
 */
export interface RunHistoryQuery {
  /** Only this profile's runs. */
  readonly profile?: string | undefined;
  /** Only runs started at or after this time. */
  readonly since?: number | undefined;
}

/**
 * Where `get_efficiency_report` reads run history: the host's telemetry store.
 *
 * @public
 */
export interface RunHistorySource {
  /** The records matching the query. */
  records(query: RunHistoryQuery): Promise<readonly ProfileRunRecord[]>;
}

/**
 * Run history in memory: the default is an empty one (no history, an empty report); a host can
 * `add` records as its runs end.
 * @public
 */
export class InMemoryRunHistory implements RunHistorySource {
  private readonly stored: ProfileRunRecord[] = [];

  /** Records a finished run. */
  add(record: ProfileRunRecord): void {
    this.stored.push(record);
  }

  /** {@inheritDoc RunHistorySource.records} */
  async records(query: RunHistoryQuery): Promise<readonly ProfileRunRecord[]> {
    return this.stored.filter(
      (record) =>
        (query.profile === undefined || record.profile === query.profile) &&
        (query.since === undefined || record.startedAt >= query.since),
    );
  }
}

/**
 * One profile's numbers in an efficiency report.
 *
 * @public
 */
export interface ProfileEfficiency {
  /** The profile. */
  readonly profile: string;
  /** Runs counted. */
  readonly runs: number;
  /** Share of runs that succeeded, 0-1. */
  readonly successRate: number;
  /** Mean model turns per run. */
  readonly averageSteps: number;
  /** Mean tool calls per run. */
  readonly averageToolCalls: number;
  /** Mean tokens (prompt and completion) per run. */
  readonly averageTokens: number;
  /** Mean duration per run, in ms. */
  readonly averageDurationMs: number;
  /** Tokens per successful run: the cost of one success. */
  readonly tokensPerSuccess: number | undefined;
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Aggregates records per profile, most runs first.
 *
 * @public
 */
export function efficiencyReport(records: readonly ProfileRunRecord[]): ProfileEfficiency[] {
  const byProfile = new Map<string, ProfileRunRecord[]>();
  for (const record of records) byProfile.set(record.profile, [...(byProfile.get(record.profile) ?? []), record]);
  return [...byProfile.entries()]
    .map(([profile, runs]) => {
      const sum = (pick: (record: ProfileRunRecord) => number) => runs.reduce((total, record) => total + pick(record), 0);
      const successes = runs.filter((record) => record.succeeded).length;
      const tokens = sum((record) => record.inputTokens + record.outputTokens);
      return {
        profile,
        runs: runs.length,
        successRate: round(successes / runs.length),
        averageSteps: round(sum((record) => record.steps) / runs.length),
        averageToolCalls: round(sum((record) => record.toolCalls) / runs.length),
        averageTokens: round(tokens / runs.length),
        averageDurationMs: round(sum((record) => record.durationMs) / runs.length),
        tokensPerSuccess: successes === 0 ? undefined : round(tokens / successes),
      };
    })
    .sort((a, b) => b.runs - a.runs || a.profile.localeCompare(b.profile));
}
