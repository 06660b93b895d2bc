import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import type { Icon } from '@modelcontextprotocol/server';

/**
 * The server's icon, drawn here rather than copied: four bars of a chart, the last one highlighted, on a
 * rounded square. The build writes it at 512×512 for the bundle (dist/icon.png, by .ci/make-icon.mjs); the
 * server offers a small copy in `initialize`, since the 2026-07-28 revision repeats serverInfo on every result.
 */
const BACKGROUND = [27, 73, 117] as const;
const BAR = [236, 242, 248] as const;
const HIGHLIGHT = [245, 166, 35] as const;
const CORNER = 0.2;
const BASELINE = 0.78;
/** Left edge and height of each bar, as fractions of the side. */
const BARS = [
  [0.2, 0.26],
  [0.36, 0.4],
  [0.52, 0.32],
  [0.68, 0.54],
] as const;
const BAR_WIDTH = 0.12;
const SAMPLES = 4;

type Rgb = readonly [number, number, number];

/** Inside the rounded square, in fractions of the side. */
function inSquare(x: number, y: number): boolean {
  const dx = Math.max(CORNER - x, 0, x - (1 - CORNER));
  const dy = Math.max(CORNER - y, 0, y - (1 - CORNER));
  return x >= 0 && x <= 1 && y >= 0 && y <= 1 && dx * dx + dy * dy <= CORNER * CORNER;
}

/**
 * RGBA rows, each behind PNG's filter byte 0; edges are smoothed by sampling each pixel SAMPLES² times. The bar
 * under each column of samples is found once, not per sample: the server draws its copy at every start.
 */
function pixels(size: number): Buffer {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  const n = size * SAMPLES;
  const barOf = Int8Array.from({ length: n }, (_, i) =>
    BARS.findIndex(([left]) => (i + 0.5) / n >= left && (i + 0.5) / n < left + BAR_WIDTH),
  );
  for (let row = 0; row < size; row++) {
    const start = row * (size * 4 + 1);
    for (let col = 0; col < size; col++) {
      const sum = [0, 0, 0];
      let covered = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        const y = (row * SAMPLES + sy + 0.5) / n;
        for (let sx = 0; sx < SAMPLES; sx++) {
          const i = col * SAMPLES + sx;
          if (!inSquare((i + 0.5) / n, y)) continue;
          const bar = barOf[i]!;
          const onBar = bar >= 0 && y <= BASELINE && y >= BASELINE - BARS[bar]![1];
          const color: Rgb = !onBar ? BACKGROUND : bar === BARS.length - 1 ? HIGHLIGHT : BAR;
          covered++;
          for (let c = 0; c < 3; c++) sum[c]! += color[c]!;
        }
      }
      const at = start + 1 + col * 4;
      for (let c = 0; c < 3; c++) raw[at + c] = covered ? Math.round(sum[c]! / covered) : 0;
      raw[at + 3] = Math.round((covered / (SAMPLES * SAMPLES)) * 255);
    }
  }
  return raw;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The icon as a PNG of `size`×`size` pixels, 8-bit RGBA. */
export function iconPng(size: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels(size), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Side of the icon offered in serverInfo, and the file the build writes it to, beside the bundle. */
export const SERVED_ICON_SIZE = 64;
export const SERVED_ICON_FILE = 'icon-64.png';

/** The built server reads the copy the build drew (drawing it costs start-up time); run from source, it draws. */
function servedPng(): Buffer {
  try {
    return readFileSync(new URL(`./${SERVED_ICON_FILE}`, import.meta.url));
  } catch {
    return iconPng(SERVED_ICON_SIZE);
  }
}
let served: Icon[] | undefined;

/** serverInfo.icons: the icon as a data: URI, drawn once per process. */
export function serverIcons(): Icon[] {
  served ??= [
    {
      src: `data:image/png;base64,${servedPng().toString('base64')}`,
      mimeType: 'image/png',
      sizes: [`${SERVED_ICON_SIZE}x${SERVED_ICON_SIZE}`],
    },
  ];
  return served;
}
