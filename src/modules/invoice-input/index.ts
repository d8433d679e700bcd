/**
 * The rules of an invoice's create input (amount, payment window and its credit cost, order reference,
 * return URLs, receiving address), shared by single creates, batches and automations.
 */
export * from './invoice-input.js';
