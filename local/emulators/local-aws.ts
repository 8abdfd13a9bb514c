/**
 * What every local emulator shares: the local region, the (cosmetic) account id, the credentials the
 * clients sign with, and free loopback ports.
 */
import { createServer as createNetServer } from 'node:net';

export const LOCAL_REGION = 'us-east-1';
/** The SQS emulator's (cosmetic) account id; it appears in every local queue URL and ARN. */
export const LOCAL_ACCOUNT_ID = '123456789012';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A loopback TCP port that was free a moment ago. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createNetServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
