/** The same content in another spelling: what duplicate publishes look like on the wire. */
import Big from 'big.js';
import { formatDecimal } from '../../lambda/core/decimal';
import type { Rng } from './random';

/** A random exact decimal in [min, max] with `digits` decimal places. */
export const amountText = (rng: Rng, min: number, max: number, digits: number): string =>
  formatDecimal(new Big(min + rng.next() * (max - min)).round(digits, Big.roundHalfEven));

/**
 * The same decimal in another spelling: trailing zeros, an exponent, a JSON number, or as is. A JSON
 * number is used only when its shortest text is exactly the decimal, as a real producer's would be.
 */
export const respell = (rng: Rng, amount: string): string | number => {
  const choice = rng.int(0, 3);
  if (choice === 0) return amount.includes('.') ? `${amount}00` : `${amount}.0`;
  if (choice === 1 && String(Number(amount)) === amount) return Number(amount);
  if (choice === 2) return `${amount}e0`;
  return amount;
};

/** The same JSON object with its keys in another order. */
export const reorder = (rng: Rng, object: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(rng.shuffle(Object.entries(object)));

/**
 * An SNS notification envelope around a message, published as the message itself. Under raw message
 * delivery that is just a body: poison, never unwrapped (its attributes must not stand in for the real ones).
 */
export const snsWrap = (
  rng: Rng,
  message: string,
  attributes: Record<string, string> = {},
): string =>
  JSON.stringify({
    Type: 'Notification',
    MessageId: rng.uuid(),
    TopicArn: 'arn:aws:sns:us-east-1:111122223333:upstream-forwarder',
    Message: message,
    Timestamp: `2026-12-0${rng.int(1, 9)}T0${rng.int(0, 9)}:00:00.000Z`,
    SignatureVersion: '1',
    Signature: 'EXAMPLE',
    MessageAttributes: Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [name, { Type: 'String', Value: value }]),
    ),
  });
