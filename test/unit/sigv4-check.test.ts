import { carriedSignature, expectedSignature } from '../support/sigv4-check';

describe('the test suite’s own SigV4 check', () => {
  // AWS's example "GET Object" of header-based authentication for S3 (Signature Version 4).
  const example = {
    method: 'GET',
    path: '/test.txt',
    headers: {
      host: 'examplebucket.s3.amazonaws.com',
      range: 'bytes=0-9',
      'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'x-amz-date': '20130524T000000Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    },
    body: '',
  };
  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

  it('computes the signature of AWS’s published example', () => {
    expect(expectedSignature(example, secret)).toBe(carriedSignature(example.headers));
  });

  it('a changed header, path or secret gives another signature', () => {
    const carried = carriedSignature(example.headers);
    expect(
      expectedSignature(
        { ...example, headers: { ...example.headers, range: 'bytes=0-8' } },
        secret,
      ),
    ).not.toBe(carried);
    expect(expectedSignature({ ...example, path: '/test%2Etxt' }, secret)).not.toBe(carried);
    expect(expectedSignature(example, `${secret}x`)).not.toBe(carried);
  });
});
