/**
 * The Azure client secret a tenant keeps in AWS Secrets Manager: a JSON object
 * `{"tenantId", "clientId", "clientSecret"}` (the app registration's directory id, application id and
 * one of its client secrets). Read at each run, so a rotated secret is used without a redeploy.
 */
import { fail } from '../errors';
import { isObject, own } from '../formats/fields';

export interface AzureClientSecret {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHAPE =
  'store the secret as JSON {"tenantId": "<directory id>", "clientId": "<application id>", "clientSecret": "<secret value>"}';

export const parseAzureClientSecret = (text: string, secretArn: string): AzureClientSecret => {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return fail('malformed-body', secretArn, `the secret is not JSON: ${SHAPE}`);
  }
  if (!isObject(document)) return fail('malformed-body', secretArn, SHAPE);
  const field = (name: keyof AzureClientSecret, guid: boolean): string => {
    const value = own(document, name);
    if (typeof value !== 'string' || value.trim() === '')
      return fail('missing-field', `${secretArn}.${name}`, `required: ${SHAPE}`);
    if (guid && !GUID.test(value))
      return fail('invalid-field', `${secretArn}.${name}`, `expected a GUID: ${SHAPE}`);
    return value;
  };
  return {
    tenantId: field('tenantId', true),
    clientId: field('clientId', true),
    clientSecret: field('clientSecret', false),
  };
};
