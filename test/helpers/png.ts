import { inflateSync } from 'node:zlib';
import { expect } from 'vitest';

export interface Png {
  width: number;
  height: number;
  /** RGBA at (x, y). */
  at(x: number, y: number): [number, number, number, number];
}

/** Reads an 8-bit RGBA, non-interlaced PNG whose rows are unfiltered: what the icon is. */
export function readPng(bytes: Buffer): Png {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks = new Map<string, Buffer[]>();
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    chunks.set(type, [...(chunks.get(type) ?? []), bytes.subarray(at + 8, at + 8 + length)]);
    at += 12 + length;
  }
  const header = chunks.get('IHDR')![0]!;
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  expect([...header.subarray(8)]).toEqual([8, 6, 0, 0, 0]);
  expect(chunks.has('IEND')).toBe(true);
  const raw = inflateSync(Buffer.concat(chunks.get('IDAT')!));
  const stride = width * 4 + 1;
  expect(raw.length).toBe(stride * height);
  for (let row = 0; row < height; row++) expect(raw[row * stride]).toBe(0);
  return {
    width,
    height,
    at(x, y) {
      const i = y * stride + 1 + x * 4;
      return [raw[i]!, raw[i + 1]!, raw[i + 2]!, raw[i + 3]!];
    },
  };
}

/** The drawing, at any size: transparent corners, a blue square, light bars, the last bar orange. */
export function expectIconDrawing(png: Png): void {
  const px = (fx: number, fy: number) => png.at(Math.floor(fx * png.width), Math.floor(fy * png.height));
  expect(px(0, 0)[3]).toBe(0);
  expect(px(0.99, 0.99)[3]).toBe(0);
  const [r, , b, a] = px(0.1, 0.5);
  expect(a).toBe(255);
  expect(b).toBeGreaterThan(r + 50);
  const bar = px(0.26, 0.7);
  expect(Math.min(...bar.slice(0, 3))).toBeGreaterThan(200);
  const highlight = px(0.74, 0.4);
  expect(highlight[0]).toBeGreaterThan(200);
  expect(highlight[2]).toBeLessThan(100);
}
