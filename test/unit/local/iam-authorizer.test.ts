/**
 * The local stand-in for IAM authorization: a request signed by an AWS SDK signer verifies; a changed
 * body, another region, a wrong session token or an unknown key does not.
 */
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/transport';
import { SignatureV4 } from '@smithy/signature-v4';
import { verifySigV4, type LocalIamIdentity } from '../../../local/emulators/iam-authorizer';

const SESSION: LocalIamIdentity = {
  accessKeyId: 'ASIALOCALTEST',
  secretAccessKey: 'local-secret',
  sessionToken: 'local-token',
  userArn: 'arn:aws:sts::777788889999:assumed-role/metering-producer/local-run',
  accountId: '777788889999',
};
const AUTHORIZER = { region: 'us-east-1', paths: ['/v1/iam/events'], identities: [SESSION] };
const URL_ = new URL('http://127.0.0.1:4567/v1/iam/events');
const BODY = '{"eventId":"e-1"}';

const signed = async (credentials = SESSION, region = 'us-east-1', applyChecksum = true) => {
  const request = await new SignatureV4({
    service: 'execute-api',
    region,
    credentials,
    sha256: Sha256,
    applyChecksum,
  }).sign(
    new HttpRequest({
      method: 'POST',
      protocol: 'http:',
      hostname: URL_.hostname,
      port: Number(URL_.port),
      path: URL_.pathname,
      headers: { host: URL_.host, 'content-type': 'application/json', 'idempotency-key': 'k' },
      body: BODY,
    }),
  );
  return request.headers;
};
const verify = (headers: Record<string, string>, body = BODY) =>
  verifySigV4({ method: 'POST', url: URL_, headers, body: Buffer.from(body) }, AUTHORIZER);

describe('verifySigV4 (local IAM authorizer)', () => {
  it('also verifies a signer that sends no x-amz-content-sha256 (the body is hashed)', async () => {
    const headers = await signed(SESSION, 'us-east-1', false);
    expect(headers['x-amz-content-sha256']).toBeUndefined();
    expect(await verify(headers)).toMatchObject({ userArn: SESSION.userArn });
    expect(await verify(headers, '{"eventId":"e-2"}')).toBeUndefined();
  });

  it('a signed request yields the signer as API Gateway reports it', async () => {
    expect(await verify(await signed())).toMatchObject({
      accessKey: 'ASIALOCALTEST',
      accountId: '777788889999',
      userArn: SESSION.userArn,
    });
  });

  it('refuses a changed body, a changed signed header, another region, a wrong secret, token or key', async () => {
    const headers = await signed();
    expect(await verify(headers, '{"eventId":"e-2"}')).toBeUndefined();
    expect(await verify({ ...headers, 'idempotency-key': 'other' })).toBeUndefined();
    expect(await verify(await signed(SESSION, 'eu-west-1'))).toBeUndefined();
    expect(await verify(await signed({ ...SESSION, secretAccessKey: 'guess' }))).toBeUndefined();
    expect(await verify(await signed({ ...SESSION, sessionToken: 'stale' }))).toBeUndefined();
    expect(await verify(await signed({ ...SESSION, accessKeyId: 'ASIAOTHER' }))).toBeUndefined();
    expect(await verify({ 'content-type': 'application/json' })).toBeUndefined();
  });
});
