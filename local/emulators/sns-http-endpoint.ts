/**
 * A minimal SNS endpoint (AWS query protocol: Publish and PublishBatch) in front of the in-process SNS,
 * so the operator CLI (`billing-dedup publish`) can publish into a running local environment through
 * the endpoint written to .local/stack-outputs.json.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { freePort } from './local-aws';
import type { LocalSns, PublishInput } from './sns-in-process';

export interface SnsEndpoint {
  endpoint: string;
  stop(): Promise<void>;
}

const xml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const attributesOf = (params: URLSearchParams, prefix: string): Record<string, string> => {
  const attributes: Record<string, string> = {};
  for (let n = 1; params.has(`${prefix}.entry.${n}.Name`); n++) {
    const name = params.get(`${prefix}.entry.${n}.Name`) as string;
    attributes[name] = params.get(`${prefix}.entry.${n}.Value.StringValue`) ?? '';
  }
  return attributes;
};

const inputOf = (params: URLSearchParams, prefix: string, topicArn: string): PublishInput => ({
  topicArn,
  message: params.get(`${prefix}Message`) ?? '',
  subject: params.get(`${prefix}Subject`) ?? undefined,
  attributes: attributesOf(params, `${prefix}MessageAttributes`),
  groupId: params.get(`${prefix}MessageGroupId`) ?? undefined,
  deduplicationId: params.get(`${prefix}MessageDeduplicationId`) ?? undefined,
});

export const startSnsEndpoint = async (sns: LocalSns): Promise<SnsEndpoint> => {
  const port = await freePort();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      void (async () => {
        const params = new URLSearchParams(body);
        const action = params.get('Action');
        const topicArn = params.get('TopicArn') ?? '';
        const requestId = randomUUID();
        const meta = `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata>`;
        const ns = 'xmlns="https://sns.amazonaws.com/doc/2010-03-31/"';
        response.setHeader('content-type', 'text/xml');
        try {
          if (action === 'Publish') {
            const { messageId } = await sns.publish(inputOf(params, '', topicArn));
            response.end(
              `<PublishResponse ${ns}><PublishResult><MessageId>${messageId}</MessageId></PublishResult>${meta}</PublishResponse>`,
            );
          } else if (action === 'PublishBatch') {
            const ok: string[] = [];
            const failed: string[] = [];
            for (let n = 1; params.has(`PublishBatchRequestEntries.member.${n}.Id`); n++) {
              const prefix = `PublishBatchRequestEntries.member.${n}.`;
              const id = xml(params.get(`${prefix}Id`) as string);
              try {
                const { messageId } = await sns.publish(inputOf(params, prefix, topicArn));
                ok.push(`<member><Id>${id}</Id><MessageId>${messageId}</MessageId></member>`);
              } catch (error) {
                const e = error as Error;
                failed.push(
                  `<member><Id>${id}</Id><Code>${xml(e.name)}</Code><Message>${xml(e.message)}</Message><SenderFault>true</SenderFault></member>`,
                );
              }
            }
            response.end(
              `<PublishBatchResponse ${ns}><PublishBatchResult><Successful>${ok.join('')}</Successful><Failed>${failed.join('')}</Failed></PublishBatchResult>${meta}</PublishBatchResponse>`,
            );
          } else {
            throw Object.assign(new Error(`${action} is not supported by the local SNS endpoint`), {
              name: 'InvalidAction',
            });
          }
        } catch (error) {
          const e = error as Error;
          response.statusCode = e.name === 'NotFoundException' ? 404 : 400;
          response.end(
            `<ErrorResponse ${ns}><Error><Type>Sender</Type><Code>${xml(e.name)}</Code><Message>${xml(e.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
          );
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
};
