// Stand-in Lambda entry for CDK unit tests (bundling is skipped there; only the file must exist).
export const handler = async (): Promise<{ batchItemFailures: [] }> => ({ batchItemFailures: [] });
