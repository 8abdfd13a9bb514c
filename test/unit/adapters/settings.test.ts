import { consumerSettings } from '../../../lambda/adapters/settings';

const base = {
  STREAM_NAME: 'cost-events',
  DLQ_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq',
  DEDUP_TABLE_NAME: 'dedup',
};

describe('consumerSettings: DELIVERY_MODE', () => {
  it('defaults to raw delivery, as every subscription of the app is wired', () => {
    expect(consumerSettings(base).deliveryMode).toBe('raw');
    expect(consumerSettings({ ...base, DELIVERY_MODE: ' ' }).deliveryMode).toBe('raw');
  });

  it('reads raw and envelope', () => {
    expect(consumerSettings({ ...base, DELIVERY_MODE: 'raw' }).deliveryMode).toBe('raw');
    expect(consumerSettings({ ...base, DELIVERY_MODE: 'envelope' }).deliveryMode).toBe('envelope');
  });

  it('refuses anything else, naming the variable and the accepted values', () => {
    expect(() => consumerSettings({ ...base, DELIVERY_MODE: 'sns' })).toThrow(
      /Environment variable DELIVERY_MODE must be raw or envelope.*"sns"/,
    );
  });
});
