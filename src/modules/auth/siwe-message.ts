import { getAddress } from 'viem';
import { AppError } from '../../shared/errors.js';

/** The fields of an EIP-4361 message, as written. */
export interface SiweMessage {
  /** The optional `scheme://` before the domain. */
  readonly scheme: string | undefined;
  readonly domain: string;
  /** EIP-55 checksummed. */
  readonly address: `0x${string}`;
  readonly statement: string | undefined;
  readonly uri: string;
  readonly chainId: number;
  readonly nonce: string;
  readonly issuedAt: Date;
  readonly expirationTime: Date | undefined;
  readonly notBefore: Date | undefined;
}

// The ABNF of EIP-4361 (https://eips.ethereum.org/EIPS/eip-4361#message-format), line by line.
const HEADER = /^(?:([A-Za-z][A-Za-z0-9+.-]*):\/\/)?([^\s/?#]+) wants you to sign in with your Ethereum account:$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** RFC 3986 reserved and unreserved characters and the space: one line, no LF. */
const STATEMENT = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= ]+$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;
const NONCE = /^[A-Za-z0-9]{8,}$/;
const CHAIN_ID = /^[0-9]{1,15}$/;
/** RFC 3339 date-time. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
/** RFC 3986 pchar. */
const REQUEST_ID = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*$/;

/**
 * Parses a sign-in message strictly as EIP-4361 writes it: the required lines in order, then only the
 * optional fields it names, in its order, and nothing after them. A wallet shows the person the whole
 * text, so text the parser would skip could say anything. Throws invalid_siwe_message naming the line.
 */
export function parseSiweMessage(message: string): SiweMessage {
  const lines: Lines = new Lines(message.split('\n'));
  const header = HEADER.exec(lines.next('the first line'));
  if (!header) lines.fail('the first line must be "<domain> wants you to sign in with your Ethereum account:"');
  const address = lines.next('the address');
  if (!ADDRESS.test(address) || getAddress(address) !== address) {
    lines.fail('the address must be a 0x address in its EIP-55 checksummed form');
  }
  lines.expect('', 'an empty line after the address');
  const statement = lines.peek() === '' ? undefined : lines.next('the statement');
  if (statement !== undefined && !STATEMENT.test(statement)) {
    lines.fail('the statement has characters EIP-4361 does not allow');
  }
  lines.expect('', 'an empty line before "URI:"');
  const uri = lines.field('URI', URI);
  lines.field('Version', /^1$/);
  const chainId = Number(lines.field('Chain ID', CHAIN_ID));
  const nonce = lines.field('Nonce', NONCE);
  const issuedAt = lines.date('Issued At');
  const expirationTime = lines.optionalDate('Expiration Time');
  const notBefore = lines.optionalDate('Not Before');
  if (lines.peek()?.startsWith('Request ID: ')) lines.field('Request ID', REQUEST_ID);
  if (lines.peek() === 'Resources:') lines.resources();
  const rest = lines.peek();
  if (rest !== undefined) lines.fail(`unexpected text after the fields EIP-4361 allows: "${rest.slice(0, 80)}"`);
  return {
    scheme: header[1],
    domain: header[2]!,
    address: address as `0x${string}`,
    statement,
    uri,
    chainId,
    nonce,
    issuedAt,
    expirationTime,
    notBefore,
  };
}

/** The message's lines, read in order. */
class Lines {
  private index = 0;

  constructor(private readonly lines: readonly string[]) {}

  peek(): string | undefined {
    return this.lines[this.index];
  }

  next(what: string): string {
    const line = this.lines[this.index];
    if (line === undefined) this.fail(`the message ends before ${what}`);
    this.index += 1;
    return line;
  }

  expect(line: string, what: string): void {
    if (this.next(what) !== line) this.fail(`expected ${what}`);
  }

  /** A required `Name: value` line whose value matches `pattern`. */
  field(name: string, pattern: RegExp): string {
    const line = this.next(`"${name}:"`);
    const value = line.startsWith(`${name}: `) ? line.slice(name.length + 2) : undefined;
    if (value === undefined || !pattern.test(value)) this.fail(`expected a valid "${name}: …" line`);
    return value;
  }

  date(name: string): Date {
    const text = this.field(name, DATE_TIME);
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) this.fail(`"${name}" is not a date`);
    return date;
  }

  /** An optional date line, read when it is the next one. */
  optionalDate(name: string): Date | undefined {
    return this.peek()?.startsWith(`${name}: `) ? this.date(name) : undefined;
  }

  /** "Resources:", then "- <URI>" lines to the end. */
  resources(): void {
    this.next('"Resources:"');
    for (let line = this.peek(); line !== undefined; line = this.peek()) {
      if (!line.startsWith('- ') || !URI.test(line.slice(2))) this.fail('each resource must be a line "- <URI>"');
      this.next('a resource');
    }
  }

  fail(problem: string): never {
    throw new AppError('invalid_siwe_message', `The message is not an EIP-4361 sign-in message: ${problem}.`);
  }
}
