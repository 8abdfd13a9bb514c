/** A request body as JSON with exact numbers (amounts stay decimal text), or the sender's 400. */
import { parseJsonExact } from '../json';
import { refuse, type Refusal } from './refusal';

export const parseBody = (text: string): { value: unknown } | Refusal => {
  try {
    return { value: parseJsonExact(text) };
  } catch {
    return refuse(400, 'malformed-body', 'the body is not JSON');
  }
};
