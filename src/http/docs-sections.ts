import { slug } from './docs-html.js';
import { HTTP_METHODS } from './openapi-types.js';
import type { HttpMethod, OpenApiDocument, OperationObject, ParameterObject, PathItemObject } from './openapi-types.js';

export interface Operation {
  /** The anchor on its page: the operationId, so `/docs/<section>#<operationId>` links are stable. */
  readonly anchor: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly op: OperationObject;
  /** Path-level and operation-level parameters, the operation's winning on the same name and location. */
  readonly parameters: readonly ParameterObject[];
}

/** One page of the reference: a tag's operations, or the webhook events. */
export interface Section {
  readonly slug: string;
  readonly title: string;
  readonly description?: string;
  readonly operations: readonly Operation[];
  readonly kind: 'tag' | 'webhooks';
}

/** Ids the layout and the overview use themselves; operations never take them. */
const OVERVIEW_IDS = ['authentication', 'idempotency', 'sections', 'errors', 'nav', 'filter'];
const isMethod = (key: string): key is HttpMethod => (HTTP_METHODS as readonly string[]).includes(key);

function operationsOf(
  items: Readonly<Record<string, PathItemObject>>,
  used: Set<string>,
  anchorOf: (name: string, method: HttpMethod, op: OperationObject) => string,
): Operation[] {
  return Object.entries(items).flatMap(([path, item]) =>
    Object.keys(item)
      .filter(isMethod)
      .flatMap((method) => {
        const op = item[method];
        if (!op) return [];
        const base = anchorOf(path, method, op) || method;
        let anchor = base;
        for (let n = 2; used.has(anchor); n++) anchor = `${base}-${n}`;
        used.add(anchor);
        const own = op.parameters ?? [];
        const shared = (item.parameters ?? []).filter((p) => !own.some((o) => o.name === p.name && o.in === p.in));
        return [{ anchor, method, path, op, parameters: [...shared, ...own] }];
      }),
  );
}

/**
 * The pages of the reference: one per tag (an operation belongs to its first tag), in the document's tag
 * order, then tags met but not declared, then `Other` for untagged operations, then the webhook events.
 * Slugs are unique and never empty.
 */
export function sectionsOf(document: OpenApiDocument): Section[] {
  const used = new Set(OVERVIEW_IDS);
  const operations = operationsOf(
    document.paths ?? {},
    used,
    (path, method, op) => op.operationId?.trim() || slug(`${method} ${path}`),
  );
  const byTag = new Map<string, Operation[]>();
  for (const o of operations) {
    const tag = o.op.tags?.[0] ?? 'Other';
    byTag.set(tag, [...(byTag.get(tag) ?? []), o]);
  }
  const order = [...(document.tags ?? []).map((tag) => tag.name), ...byTag.keys()];
  const rank = (tag: string) => (tag === 'Other' ? Infinity : order.indexOf(tag));
  const descriptions = new Map((document.tags ?? []).map((t) => [t.name, t.description]));
  const slugs = new Set<string>();
  const unique = (title: string): string => {
    const base = slug(title) || 'section';
    let s = base;
    for (let n = 2; slugs.has(s); n++) s = `${base}-${n}`;
    slugs.add(s);
    return s;
  };
  const sections: Section[] = [...byTag]
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([tag, ops]) => ({
      slug: unique(tag),
      title: tag,
      description: descriptions.get(tag),
      operations: ops,
      kind: 'tag',
    }));
  const events = operationsOf(document.webhooks ?? {}, used, (name) => slug(name));
  if (events.length > 0)
    sections.push({
      slug: unique('Webhook events'),
      title: 'Webhook events',
      description: 'What this service sends to your webhook endpoint: each event, its headers and its payload.',
      operations: events,
      kind: 'webhooks',
    });
  return sections;
}
