/**
 * Measures the items a DynamoDB client actually sends: every Put (PutItem, BatchWriteItem, a
 * transaction's Put) at its stored size, every Update at the size of its key and values (what it adds
 * to the item), and the size of every transaction. Add `probe.middleware` to a client's
 * middleware stack (`initialize` step); read `probe.largest` and `probe.largestTransaction`.
 */
import type {
  AttributeValue,
  ServiceInputTypes,
  ServiceOutputTypes,
  TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';
import { itemBytes } from '../../lambda/adapters/item-size';

type Item = Record<string, AttributeValue>;

export interface MeasuredItem {
  bytes: number;
  operation: string;
  /** The item's sort key (`sk`), to name it. */
  sk: string;
}

const updateBytes = (key: Item, values: Item | undefined): number =>
  itemBytes(key) + itemBytes(values ?? {});

const transactItemBytes = (item: TransactWriteItem): number =>
  item.Put
    ? itemBytes(item.Put.Item ?? {})
    : item.Update
      ? updateBytes(item.Update.Key ?? {}, item.Update.ExpressionAttributeValues)
      : 0;

export class ItemSizeProbe {
  largest: MeasuredItem = { bytes: 0, operation: '', sk: '' };
  largestTransaction = { bytes: 0, items: 0 };
  items = 0;

  private see(bytes: number, operation: string, key: Item): void {
    this.items += 1;
    if (bytes > this.largest.bytes) this.largest = { bytes, operation, sk: key.sk?.S ?? '' };
  }

  readonly middleware: InitializeMiddleware<ServiceInputTypes, ServiceOutputTypes> =
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      switch (context.commandName) {
        case 'PutItemCommand': {
          const item = input.Item as Item;
          this.see(itemBytes(item), 'PutItem', item);
          break;
        }
        case 'UpdateItemCommand': {
          const key = input.Key as Item;
          this.see(updateBytes(key, input.ExpressionAttributeValues as Item), 'UpdateItem', key);
          break;
        }
        case 'BatchWriteItemCommand':
          for (const requests of Object.values(
            input.RequestItems as Record<string, { PutRequest?: { Item: Item } }[]>,
          ))
            for (const request of requests)
              if (request.PutRequest)
                this.see(
                  itemBytes(request.PutRequest.Item),
                  'BatchWriteItem',
                  request.PutRequest.Item,
                );
          break;
        case 'TransactWriteItemsCommand': {
          const items = input.TransactItems as TransactWriteItem[];
          let total = 0;
          for (const item of items) {
            const bytes = transactItemBytes(item);
            total += bytes;
            this.see(bytes, 'TransactWriteItems', (item.Put?.Item ?? item.Update?.Key) as Item);
          }
          if (total > this.largestTransaction.bytes)
            this.largestTransaction = { bytes: total, items: items.length };
          break;
        }
        default:
      }
      return next(args);
    };
}
