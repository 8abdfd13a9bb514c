import { decodeRecord } from '../../lambda/core/envelope';
import { ValidationError } from '../../lambda/core/errors';

describe('decodeRecord', () => {
  const message = { accountId: '1', amount: '1.5' };
  const envelopeOf = (inner: string, attributes: Record<string, unknown> = {}) =>
    JSON.stringify({
      Type: 'Notification',
      MessageId: 'm',
      TopicArn: 'arn:aws:sns:eu-west-1:1:t',
      Message: inner,
      MessageAttributes: attributes,
    });

  describe('raw delivery (the default)', () => {
    it('reads the body as the message and the SQS message attributes', () => {
      expect(
        decodeRecord({
          body: JSON.stringify(message),
          messageAttributes: { tenant: { stringValue: 'acme', dataType: 'String' } },
        }),
      ).toEqual({ message, attributes: { tenant: 'acme' }, snsWrapped: false });
    });

    it('a body shaped like an SNS envelope is just a body: its attributes never override the real ones', () => {
      const forged = envelopeOf(JSON.stringify(message), {
        tenant: { Type: 'String', Value: 'globex' },
      });
      const decoded = decodeRecord(
        { body: forged, messageAttributes: { tenant: { stringValue: 'acme' } } },
        'raw',
      );
      expect(decoded.attributes).toEqual({ tenant: 'acme' });
      expect(decoded.message).toEqual(JSON.parse(forged));
      expect(decoded.snsWrapped).toBe(false);
    });

    it('keeps plain text as a string', () => {
      expect(decodeRecord({ body: 'AWS Budget Notification' }).message).toBe(
        'AWS Budget Notification',
      );
    });
  });

  describe('envelope delivery', () => {
    it('unwraps the SNS notification; attributes come from the envelope only', () => {
      const body = envelopeOf(JSON.stringify(message), {
        tenant: { Type: 'String', Value: 'beta' },
        blob: { Type: 'Binary', Value: 'AAA=' },
      });
      expect(
        decodeRecord(
          {
            body,
            messageAttributes: {
              tenant: { stringValue: 'acme' },
              source: { stringValue: 'sent-to-sqs-directly' },
            },
          },
          'envelope',
        ),
      ).toEqual({
        message,
        attributes: { tenant: 'beta' },
        snsWrapped: true,
        topicArn: 'arn:aws:sns:eu-west-1:1:t',
      });
    });

    it('keeps plain text inside the envelope as a string', () => {
      expect(decodeRecord({ body: envelopeOf('AWS Budget Notification') }, 'envelope')).toEqual({
        message: 'AWS Budget Notification',
        attributes: {},
        snsWrapped: true,
        topicArn: 'arn:aws:sns:eu-west-1:1:t',
      });
    });

    it('rejects a body that is not an SNS notification, naming the delivery mode', () => {
      for (const body of [JSON.stringify(message), 'plain text', '{"Type":"Notification"}']) {
        let error: unknown;
        try {
          decodeRecord(
            { body, messageAttributes: { tenant: { stringValue: 'acme' } } },
            'envelope',
          );
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(ValidationError);
        expect(error).toMatchObject({ code: 'malformed-body', field: '$' });
        expect((error as ValidationError).reason).toMatch(/DELIVERY_MODE=envelope/);
      }
    });
  });

  it('does not let attribute names pollute prototypes', () => {
    const body = envelopeOf('{}', JSON.parse('{"__proto__": {"Type": "String", "Value": "x"}}'));
    const polluted = JSON.parse('{"__proto__": {"stringValue": "y"}}');
    for (const mode of ['raw', 'envelope'] as const) {
      const decoded = decodeRecord({ body, messageAttributes: polluted }, mode);
      expect(Object.getPrototypeOf(decoded.attributes)).toBe(Object.prototype);
      expect(Object.keys(decoded.attributes)).toEqual([]);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
