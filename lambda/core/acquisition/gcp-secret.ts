/**
 * The Google service-account key a tenant keeps in AWS Secrets Manager: the JSON file Google issues
 * (`"type": "service_account"`, `client_email`, `private_key`, `private_key_id`). Read at each pass, so
 * a rotated key is used without a redeploy.
 */
import { parseSecretDocument } from './secret-document';

export interface GcpServiceAccountKey {
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
}

const SHAPE =
  "store the service account's JSON key file as the secret's text (IAM → Service accounts → Keys → Add key → JSON)";

export const parseServiceAccountKey = (text: string, secretArn: string): GcpServiceAccountKey => {
  const document = parseSecretDocument(text, secretArn, SHAPE);
  if (document.value('type') !== 'service_account')
    document.invalid('type', 'expected "service_account"');
  const privateKey = document.text('private_key');
  if (!privateKey.includes('BEGIN PRIVATE KEY'))
    document.invalid('private_key', 'expected a PKCS#8 PEM key');
  const keyId = document.value('private_key_id');
  return {
    clientEmail: document.text('client_email'),
    privateKey,
    ...(typeof keyId === 'string' && keyId !== '' ? { privateKeyId: keyId } : {}),
  };
};
