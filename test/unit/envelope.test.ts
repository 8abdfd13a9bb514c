import { decodeRecord } from '../../lambda/core/envelope';

describe('decodeRecord', () => {
  const message = { accountId: '1', amount: '1.5' };

  it('reads a raw JSON body and SQS message attributes', () => {
    expect(
      decodeRecord({
        body: JSON.stringify(message),
        messageAttributes: { tenant: { stringValue: 'acme', dataType: 'String' } },
      }),
    ).toEqual({ message, attributes: { tenant: 'acme' }, snsWrapped: false });
  });

  it('unwraps an SNS notification envelope and prefers its attributes', () => {
    const body = JSON.stringify({
      Type: 'Notification',
      MessageId: 'm',
      TopicArn: 'arn:aws:sns:eu-west-1:1:t',
      Message: JSON.stringify(message),
      MessageAttributes: {
        tenant: { Type: 'String', Value: 'beta' },
        blob: { Type: 'Binary', Value: 'AAA=' },
      },
    });
    expect(decodeRecord({ body, messageAttributes: { tenant: { stringValue: 'acme' } } })).toEqual({
      message,
      attributes: { tenant: 'beta' },
      snsWrapped: true,
    });
  });

  it('keeps plain text as a string, raw or wrapped', () => {
    expect(decodeRecord({ body: 'AWS Budget Notification' }).message).toBe(
      'AWS Budget Notification',
    );
    const body = JSON.stringify({
      Type: 'Notification',
      MessageId: 'm',
      Message: 'AWS Budget Notification',
    });
    expect(decodeRecord({ body })).toMatchObject({
      message: 'AWS Budget Notification',
      snsWrapped: true,
    });
  });

  it('does not let attribute names pollute prototypes', () => {
    const body = JSON.stringify({
      Type: 'Notification',
      MessageId: 'm',
      Message: '{}',
      MessageAttributes: JSON.parse('{"__proto__": {"Type": "String", "Value": "x"}}'),
    });
    const decoded = decodeRecord({
      body,
      messageAttributes: JSON.parse('{"__proto__": {"stringValue": "y"}}'),
    });
    expect(Object.getPrototypeOf(decoded.attributes)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(decoded.attributes)).toEqual([]);
  });
});
