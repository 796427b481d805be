/**
 * One choice offered with a question.
 *
 * @public
 */
export interface QuestionOption {
  /** The choice, as the user picks it. */
  readonly label: string;
  /** What picking it means. */
  readonly description?: string | undefined;
}

/**
 * A question for the user.
 *
 * @public
 */
export interface UserQuestion {
  /** The question's id. */
  readonly id: string;
  /** The run that asks. */
  readonly runId: string;
  /** The conversation that asks. */
  readonly conversationId: string;
  /** The question. */
  readonly question: string;
  /** A short label for the question (a tab or chip in a UI). */
  readonly header?: string | undefined;
  /** Choices; the user may still answer in their own words. */
  readonly options: readonly QuestionOption[];
  /** True when several choices may be picked. */
  readonly multiSelect: boolean;
}

/**
 * The user's answer.
 *
 * @public
 */
export interface UserAnswer {
  /** The picked labels, or the user's own words as one entry. */
  readonly answers: readonly string[];
  /** A note the user added. */
  readonly note?: string | undefined;
}

/**
 * How `AskUserQuestion` reaches the user: the host's UI, a chat channel, or the
 * {@link InMemoryQuestionBroker} that a host answers from its own code. Rejects (or honours the
 * signal) when the question is dismissed or times out.
 * @public
 */
export interface QuestionBroker {
  /** Asks and resolves with the answer. */
  ask(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer>;
}
