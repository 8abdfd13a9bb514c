// Placeholder until the consumer core lands; see issue "Consumer core".
export const handler = async (): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> => ({
  batchItemFailures: [],
});
