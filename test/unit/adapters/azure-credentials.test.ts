import { ClientSecretCredential } from '@azure/identity';
import { azureCredentialFor } from '../../../lambda/adapters/azure-credentials';
import { ValidationError } from '../../../lambda/core/errors';
import { parseAzureClientSecret } from '../../../lambda/core/acquisition/azure-secret';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:acme-azure-AbCdEf';
const secret = (clientSecret: string) =>
  JSON.stringify({
    tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
    clientId: '11111111-2222-3333-4444-555555555555',
    clientSecret,
  });

describe('the tenant secret', () => {
  it('reads tenantId, clientId and clientSecret', () => {
    expect(parseAzureClientSecret(secret('s3cr3t'), ARN)).toEqual({
      tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
      clientId: '11111111-2222-3333-4444-555555555555',
      clientSecret: 's3cr3t',
    });
  });

  it.each([
    ['not JSON', 'plain-text-secret', ARN],
    [
      'no clientSecret',
      JSON.stringify({
        tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
        clientId: '11111111-2222-3333-4444-555555555555',
      }),
      `${ARN}.clientSecret`,
    ],
    [
      'a tenantId that is not a GUID',
      JSON.stringify({
        tenantId: 'contoso',
        clientId: '11111111-2222-3333-4444-555555555555',
        clientSecret: 'x',
      }),
      `${ARN}.tenantId`,
    ],
  ])('refuses %s, naming the shape to store', (_case, text, field) => {
    let error: unknown;
    try {
      parseAzureClientSecret(text, ARN);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe(field);
    expect((error as ValidationError).reason).toContain('"clientSecret": "<secret value>"');
  });
});

describe('azureCredentialFor', () => {
  it('reads the secret at every run, so a rotated secret needs no redeploy', async () => {
    const values = [secret('before-rotation'), secret('after-rotation')];
    const reads: string[] = [];
    const reader = async (arn: string) => {
      reads.push(arn);
      return values[reads.length - 1];
    };

    const first = await azureCredentialFor(reader, ARN);
    const second = await azureCredentialFor(reader, ARN);

    expect(reads).toEqual([ARN, ARN]);
    expect(first).toBeInstanceOf(ClientSecretCredential);
    expect(second).not.toBe(first);
  });
});
