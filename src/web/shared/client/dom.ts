// Looking up the page's elements, typed. Shared with the portal's script.

/** The element with this id (of `type`, when given); a missing one is a bug in the page's markup, so it throws. */
export function byId(id: string): HTMLElement;
export function byId<T extends HTMLElement>(id: string, type: { new (): T; prototype: T }): T;
export function byId(id: string, type: { new (): HTMLElement; prototype: HTMLElement } = HTMLElement): HTMLElement {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(node ? `#${id} is not a ${type.name}.` : `The page has no #${id}.`);
  return node;
}
