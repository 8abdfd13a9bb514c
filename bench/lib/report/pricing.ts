/** DynamoDB on-demand list prices, us-east-1, as known (not fetched: no network here). */
export const PRICING = {
  region: 'us-east-1',
  writeRequestUnitUsdPerMillion: 0.625,
  readRequestUnitUsdPerMillion: 0.125,
  source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  asOf: 'list price as known (in effect since the 2024-11-01 on-demand price cut), assumed on the run date; not fetched: no network access',
} as const;
