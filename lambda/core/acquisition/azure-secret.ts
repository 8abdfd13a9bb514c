/**
 * The Azure client secret a tenant keeps in AWS Secrets Manager: a JSON object
 * `{"tenantId", "clientId", "clientSecret"}` (the app registration's directory id, application id and
 * one of its client secrets). Read at each run, so a rotated secret is used without a redeploy.
 */
import { parseSecretDocument } from './secret-document';

export interface AzureClientSecret {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHAPE =
  'store the secret as JSON {"tenantId": "<directory id>", "clientId": "<application id>", "clientSecret": "<secret value>"}';

export const parseAzureClientSecret = (text: string, secretArn: string): AzureClientSecret => {
  const document = parseSecretDocument(text, secretArn, SHAPE);
  const guid = (name: keyof AzureClientSecret): string => {
    const value = document.text(name);
    return GUID.test(value) ? value : document.invalid(name, 'expected a GUID');
  };
  return {
    tenantId: guid('tenantId'),
    clientId: guid('clientId'),
    clientSecret: document.text('clientSecret'),
  };
};
