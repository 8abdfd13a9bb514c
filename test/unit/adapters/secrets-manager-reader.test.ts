import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { secretsManagerReader } from '../../../lambda/adapters/secrets-manager-reader';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:acme-azure-AbCdEf';
const secrets = mockClient(SecretsManagerClient);

beforeEach(() => secrets.reset());

describe('secretsManagerReader', () => {
  it('asks for the named secret at every call, so a rotated value is read by the next run', async () => {
    secrets
      .on(GetSecretValueCommand, { SecretId: ARN })
      .resolvesOnce({ SecretString: 'before rotation' })
      .resolvesOnce({ SecretString: 'after rotation' });
    const read = secretsManagerReader(new SecretsManagerClient({}));
    expect(await read(ARN)).toBe('before rotation');
    expect(await read(ARN)).toBe('after rotation');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('refuses a binary secret, naming the secret and what to store', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretBinary: new Uint8Array([1]) });
    await expect(secretsManagerReader(new SecretsManagerClient({}))(ARN)).rejects.toThrow(
      `${ARN}: the secret has no text value (a binary secret?); store the JSON as SecretString`,
    );
  });

  it('lets an access or lookup error through (the run fails, the error alarm fires)', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejects(new ResourceNotFoundException({ message: 'no such secret', $metadata: {} }));
    await expect(secretsManagerReader(new SecretsManagerClient({}))(ARN)).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
  });
});
