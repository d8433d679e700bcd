import type { OperationExamples } from '../../http/openapi-examples.js';
import { EVENT_EXAMPLES } from './event.examples.js';

export const changeFeedExamples = {
  changes: {
    response: {
      events: [EVENT_EXAMPLES['payment_intent.succeeded'], EVENT_EXAMPLES['invoice.scheduled']],
      nextCursor: '1045',
      hasMore: false,
    },
  },
} satisfies Record<string, OperationExamples>;
