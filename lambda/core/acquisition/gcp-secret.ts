/**
 * The Google service-account key a tenant keeps in AWS Secrets Manager: the JSON file Google issues
 * (`"type": "service_account"`, `client_email`, `private_key`, `private_key_id`). Read at each pass, so
 * a rotated key is used without a redeploy.
 */
import { fail } from '../errors';
import { isObject, own } from '../formats/fields';

export interface GcpServiceAccountKey {
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
}

const SHAPE =
  "store the service account's JSON key file as the secret's text (IAM → Service accounts → Keys → Add key → JSON)";

export const parseServiceAccountKey = (text: string, secretArn: string): GcpServiceAccountKey => {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return fail('malformed-body', secretArn, `the secret is not JSON: ${SHAPE}`);
  }
  if (!isObject(document)) return fail('malformed-body', secretArn, SHAPE);
  if (own(document, 'type') !== 'service_account')
    fail('invalid-field', `${secretArn}.type`, `expected "service_account": ${SHAPE}`);
  const field = (name: string): string => {
    const value = own(document, name);
    if (typeof value !== 'string' || value.trim() === '')
      return fail('missing-field', `${secretArn}.${name}`, `required: ${SHAPE}`);
    return value;
  };
  const privateKey = field('private_key');
  if (!privateKey.includes('BEGIN PRIVATE KEY'))
    fail('invalid-field', `${secretArn}.private_key`, `expected a PKCS#8 PEM key: ${SHAPE}`);
  const keyId = own(document, 'private_key_id');
  return {
    clientEmail: field('client_email'),
    privateKey,
    ...(typeof keyId === 'string' && keyId !== '' ? { privateKeyId: keyId } : {}),
  };
};
