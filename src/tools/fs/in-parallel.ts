const PARALLEL = 16;

/** Runs `task` over `items`, 16 at a time; throws the first error after all settled. */
export async function inParallel<T>(items: readonly T[], task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        await task(items[index] as T, index);
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  if (errors.length > 0) throw errors[0];
}
