import { ENV } from '../../../contract/environment';
import { COST_STREAM } from '../../../contract/streams';
import { consumerSettings } from '../../../lambda/adapters/settings';

const base = {
  [ENV.streamName]: COST_STREAM,
  [ENV.dlqUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq',
  [ENV.dedupTableName]: 'dedup',
};

describe('consumerSettings: DELIVERY_MODE', () => {
  it('defaults to raw delivery, as every subscription of the app is wired', () => {
    expect(consumerSettings(base).deliveryMode).toBe('raw');
    expect(consumerSettings({ ...base, [ENV.deliveryMode]: ' ' }).deliveryMode).toBe('raw');
  });

  it('reads raw and envelope', () => {
    expect(consumerSettings({ ...base, [ENV.deliveryMode]: 'raw' }).deliveryMode).toBe('raw');
    expect(consumerSettings({ ...base, [ENV.deliveryMode]: 'envelope' }).deliveryMode).toBe(
      'envelope',
    );
  });

  it('refuses anything else, naming the variable and the accepted values', () => {
    expect(() => consumerSettings({ ...base, [ENV.deliveryMode]: 'sns' })).toThrow(
      /Environment variable DELIVERY_MODE must be raw or envelope.*"sns"/,
    );
  });
});
