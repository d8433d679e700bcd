import { expect, it } from 'vitest';
import { supportContactHref } from '../../src/modules/workspaces/index.js';

it.each([
  ['help@example.com', 'mailto:help@example.com'],
  ['sales+eu@shop.example.com', 'mailto:sales%2Beu@shop.example.com'],
  // Characters an address may hold that would otherwise start a mailto: query or fragment.
  ['a?cc=x#y@example.com', 'mailto:a%3Fcc%3Dx%23y@example.com'],
  ['https://shop.example.com/help?topic=orders', 'https://shop.example.com/help?topic=orders'],
])('links the support contact %s as %s', (contact, href) => {
  expect(supportContactHref(contact)).toBe(href);
});
