import { Type } from '@sinclair/typebox';
import { ISSUE_KINDS, type IssueKind, type IssueSeverity } from './health.js';

/** One open issue. The schema is the whitelist of what leaves the server. */
export const IssueView = Type.Object({
  kind: Type.Unsafe<IssueKind>({
    type: 'string',
    enum: [...ISSUE_KINDS],
    description: 'What is wrong; see the list above.',
  }),
  severity: Type.Unsafe<IssueSeverity>({
    type: 'string',
    enum: ['critical', 'warning'],
    description:
      '`critical`: something stopped until you act. `warning`: it may resolve by itself, soon needs you, or is your own choice (automations you paused).',
  }),
  since: Type.String({
    format: 'date-time',
    description: 'When the issue began (for counted issues: its oldest occurrence).',
  }),
  hint: Type.String({ description: 'What to do, in words.' }),
  count: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'How many deliveries or payments are affected (absent for `low_credits`).',
    }),
  ),
});

export const IssuesView = Type.Object({
  issues: Type.Array(IssueView, {
    description: 'Open issues, critical first, at most one per kind; empty when all is well.',
  }),
});
