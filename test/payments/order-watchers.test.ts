import { describe, expect, it } from 'vitest';
import { OrderWatchers } from '../../src/modules/order-changes/order-watchers.js';
import type { WorkspaceId } from '../../src/shared/ids.js';

const WS = 'ws_a' as WorkspaceId;
const OTHER = 'ws_b' as WorkspaceId;

describe('order watchers', () => {
  it('refuses to watch while changes are not heard', () => {
    const watchers = new OrderWatchers();
    expect(watchers.watch(WS, 'inv_1', () => {})).toBeUndefined();
  });

  it('tells the watchers of the named order only, and every order of a workspace for a workspace change', () => {
    const watchers = new OrderWatchers();
    watchers.heard();
    const heard: string[] = [];
    watchers.watch(WS, 'inv_1', (event) => heard.push(`1 ${event}`));
    watchers.watch(WS, 'inv_2', (event) => heard.push(`2 ${event}`));
    watchers.watch(OTHER, 'inv_1', (event) => heard.push(`other ${event}`));
    watchers.changed(`${WS} inv_1`);
    expect(heard).toEqual(['1 changed']);
    watchers.changed(WS);
    expect(heard).toEqual(['1 changed', '1 changed', '2 changed']);
  });

  it('stops telling once unwatched, even when the stop is called twice after another watch began', () => {
    const watchers = new OrderWatchers();
    watchers.heard();
    const heard: string[] = [];
    const stop = watchers.watch(WS, 'inv_1', () => heard.push('first'))!;
    stop();
    watchers.watch(WS, 'inv_1', () => heard.push('second'));
    stop();
    watchers.changed(`${WS} inv_1`);
    expect(heard).toEqual(['second']);
  });

  it('tells every watcher to read again after a reconnect, and that it is deaf when the listener is', () => {
    const watchers = new OrderWatchers();
    watchers.heard();
    const heard: string[] = [];
    watchers.watch(WS, 'inv_1', (event) => heard.push(event));
    watchers.heard();
    watchers.deaf();
    expect(heard).toEqual(['changed', 'deaf']);
    expect(watchers.watch(WS, 'inv_2', () => {})).toBeUndefined();
  });

  it("tells a workspace's watcher of each of its orders by id, of a workspace change without one, and nothing of another workspace", () => {
    const watchers = new OrderWatchers();
    expect(watchers.watchWorkspace(WS, () => {})).toBeUndefined();
    watchers.heard();
    const heard: string[] = [];
    const stop = watchers.watchWorkspace(WS, (event, orderId) => heard.push(`${event} ${orderId ?? 'any'}`))!;
    watchers.changed(`${WS} inv_1`);
    watchers.changed(`${WS} cp_2`);
    watchers.changed(`${OTHER} inv_3`);
    watchers.changed(WS);
    watchers.heard();
    expect(heard).toEqual(['changed inv_1', 'changed cp_2', 'changed any', 'changed any']);
    stop();
    stop();
    watchers.changed(`${WS} inv_1`);
    expect(heard).toHaveLength(4);
  });

  it("tells a workspace's watcher when it goes deaf, beside the watchers of single orders", () => {
    const watchers = new OrderWatchers();
    watchers.heard();
    const heard: string[] = [];
    watchers.watchWorkspace(WS, (event) => heard.push(`workspace ${event}`));
    watchers.watch(WS, 'inv_1', (event) => heard.push(`order ${event}`));
    watchers.changed(`${WS} inv_1`);
    watchers.deaf();
    expect(heard).toEqual(['workspace changed', 'order changed', 'workspace deaf', 'order deaf']);
  });
});
