import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { displayAmount, formatUsdc } from '../../shared/money.js';
import type { Receipt } from './receipt.js';

// DejaVu covers Latin, Greek and Cyrillic names and descriptions, which the PDF's standard fonts cannot
// show; fonts are embedded as subsets, so the text stays extractable and searchable.
const fontFile = (name: string) => createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${name}.ttf`);
const FONTS = { regular: fontFile('DejaVuSans'), bold: fontFile('DejaVuSans-Bold'), mono: fontFile('DejaVuSansMono') };

const MARGIN = 56;
const LABEL_WIDTH = 110;
const VALUE_X = MARGIN + LABEL_WIDTH + 8;
const VALUE_WIDTH = 595.28 - VALUE_X - MARGIN;
const MUTED = '#555555';

/** `2026-11-14 09:41:12 UTC`: a receipt states its time zone. */
export function formatUtc(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** The rows of a receipt, label then value, in the order a reader checks them. */
export function receiptRows(receipt: Receipt): [label: string, value: string, mono?: boolean][] {
  const { invoice, payment, network } = receipt;
  const rows: [string, string, boolean?][] = [
    ['Amount paid', `${displayAmount(formatUsdc(payment.amount))} USDC`],
    ['Invoice', invoice.number],
    ...(invoice.description ? [['For', invoice.description] as [string, string]] : []),
    ['Paid on', formatUtc(invoice.paidAt!)],
    ['Network', `${network.label}${network.testnet ? ' (testnet)' : ''}, chain id ${network.chainId}`],
    ['Paid by', payment.payer ?? 'unknown', true],
    ['Paid to', payment.payTo, true],
    ['Transaction', payment.txHash!, true],
    ['Block', payment.blockNumber!.toString()],
  ];
  if (receipt.transactionUrl) rows.push(['Block explorer', receipt.transactionUrl]);
  if (invoice.externalId) rows.push(['Order reference', invoice.externalId]);
  rows.push(['Payment id', payment.id, true]);
  return rows;
}

/** A Content-Disposition that downloads the PDF under the receipt's number. */
export function receiptAttachment(receipt: Receipt): string {
  return `attachment; filename="${receipt.receiptNumber}.pdf"`;
}

/** The receipt as an A4 PDF document. */
export function receiptPdf(receipt: Receipt): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: `Receipt ${receipt.receiptNumber}`, Author: receipt.merchant.name, Subject: receipt.invoice.number },
  });
  const done = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('regular', FONTS.regular).registerFont('bold', FONTS.bold).registerFont('mono', FONTS.mono);

  doc.font('bold').fontSize(22).text('Receipt', MARGIN, MARGIN);
  doc.font('regular').fontSize(11).fillColor(MUTED).text(receipt.receiptNumber);
  doc.moveDown(1.2).fillColor('black').font('bold').fontSize(14).text(receipt.merchant.name);
  const contact = receipt.merchant.supportContact;
  if (contact) doc.font('regular').fontSize(10).fillColor(MUTED).text(`Questions about this payment: ${contact}`);
  doc.moveDown(1.5);

  let y = doc.y;
  for (const [label, value, mono] of receiptRows(receipt)) {
    doc.font('regular').fontSize(10).fillColor(MUTED).text(label, MARGIN, y, { width: LABEL_WIDTH });
    doc
      .font(mono ? 'mono' : 'regular')
      .fontSize(mono ? 9 : 10)
      .fillColor('black');
    const height = doc.heightOfString(value, { width: VALUE_WIDTH });
    doc.text(value, VALUE_X, y, { width: VALUE_WIDTH });
    y += Math.max(height, 12) + 8;
  }

  doc.font('regular').fontSize(9).fillColor(MUTED);
  doc.text(
    `A payment in USDC recorded on ${receipt.network.label}. Anyone can check it: the transaction above moved ` +
      `the amount from the payer to the merchant's address.`,
    MARGIN,
    y + 16,
    { width: VALUE_X + VALUE_WIDTH - MARGIN },
  );
  doc.end();
  return done;
}
