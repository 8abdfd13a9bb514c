import { onFirstInvocation } from '../../../lambda/handlers/consumer';

describe('onFirstInvocation', () => {
  it('wires the handler on the first call and reuses it for every later call', async () => {
    let wired = 0;
    const handler = onFirstInvocation(() => {
      wired++;
      return async (event: number) => event * 2;
    });
    expect(wired).toBe(0);
    expect(await handler(1)).toBe(2);
    expect(await handler(2)).toBe(4);
    expect(wired).toBe(1);
  });
});
