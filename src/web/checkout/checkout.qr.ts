import encodeQR from 'qr';
import { Html, escapeHtml } from '../html.js';

/** The quiet zone the QR standard asks for (ISO/IEC 18004 §5.3.8): four modules of white on every side. */
const QUIET_ZONE = 4;

/**
 * A QR code as inline SVG markup, drawn on the server so the page needs no client library and no image
 * request. Each run of dark modules in a row is one stroke along the row's middle (`M x y.5 h n`, later
 * runs of the row as relative moves), which keeps a typical EIP-681 URI near 4 KB. Medium error
 * correction survives a scratched phone screen.
 */
export function qrSvg(text: string, label: string): Html {
  const modules = encodeQR(text, 'raw', { ecc: 'medium', border: QUIET_ZONE });
  const size = modules.length;
  let path = '';
  modules.forEach((row, y) => {
    let pen: number | undefined; // x where the previous run of this row ended
    for (let x = 0; x < size; x += 1) {
      if (!row[x]) continue;
      const start = x;
      while (x + 1 < size && row[x + 1]) x += 1;
      path += pen === undefined ? `M${start} ${y}.5` : `m${start - pen} 0`;
      path += `h${x - start + 1}`;
      pen = x + 1;
    }
  });
  // Only numbers and fixed letters go into the markup besides the escaped label.
  return new Html(
    `<svg class="qr-code" viewBox="0 0 ${size} ${size}" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeHtml(label)}" shape-rendering="crispEdges">` +
      `<rect width="${size}" height="${size}" fill="#fff"/><path stroke="#000" d="${path}"/></svg>`,
  );
}
