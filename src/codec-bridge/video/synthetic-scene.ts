// A seeded synthetic scene that compresses like camera video rather than a
// flat test card: a textured background (a room of panels, shelves and grain
// under soft lighting) seen by a slowly panning camera, several textured
// shapes of different sizes moving at different speeds and occluding one
// another, sensor noise, and gentle global changes of brightness and colour.
// Everything random is drawn from createRng at construction (textures, shape
// paths, a table of noise); frame i is then a pure function of the seed, the
// size and i, so frames can be generated in any order and give the same bytes.
import { createRng, type Rng } from '../../common/random.ts';
import type { Picture } from '../types.ts';
import { checkDimensions, chromaHeight, chromaWidth, i420Size } from './i420.ts';
import { lazyPicture, type SampledPicture } from './sampled-picture.ts';
import { checkFrameIndex, type VideoSource } from './video-source.ts';

export interface SyntheticSceneOptions {
  /** Default 1280. */
  readonly width?: number;
  /** Default 720. */
  readonly height?: number;
  /** Frames per second (motion is defined in seconds, so it looks the same at any rate). Default 60. */
  readonly fps?: number;
  /** Default 1. */
  readonly seed?: string | number;
  /** Standard deviation of the luma sensor noise, in 8-bit levels (chroma gets half). Default 1.5. */
  readonly noise?: number;
}

/** A textured plane of a shape, with its coverage (0..255, anti-aliased edges). */
interface Sprite {
  readonly width: number;
  readonly height: number;
  readonly texture: Uint8Array;
  readonly alpha: Uint8Array;
}

interface Shape {
  readonly luma: Sprite;
  readonly u: Sprite;
  readonly v: Sprite;
  /** Centre path: centre + amplitude * sin(2 pi frequency t + phase), per axis, plus a second, faster wobble. */
  readonly centre: readonly [number, number];
  readonly amplitude: readonly [number, number];
  readonly frequency: readonly [number, number];
  readonly phase: readonly [number, number];
  readonly wobble: number;
  readonly wobbleFrequency: number;
}

/** Where things are in one frame (see SyntheticScene.layout). */
interface FrameLayout {
  /** Seconds since frame 0. */
  readonly t: number;
  /** The frame's top-left corner in the background. */
  readonly panX: number;
  readonly panY: number;
  /** Left and top of each shape's luma sprite, in drawing order. */
  readonly corners: Int32Array;
  /** Exposure: luma level before -> after (then noise is added and the sum clamped). */
  readonly lut: Int16Array;
  /** Row y's luma noise starts at table offset (noiseStart + y * noiseStep) mod table size. */
  readonly noiseStart: number;
  readonly noiseStep: number;
}

const TAU = 2 * Math.PI;
const NOISE_TABLE_BITS = 18;

/** Smooth value noise in [0, 1) with features about `cell` pixels apart. */
function valueNoise(rng: Rng, width: number, height: number, cell: number): Float32Array {
  const gridWidth = Math.ceil(width / cell) + 2;
  const gridHeight = Math.ceil(height / cell) + 2;
  const grid = new Float32Array(gridWidth * gridHeight);
  for (let i = 0; i < grid.length; i++) grid[i] = rng.next();
  const smooth = (t: number) => t * t * (3 - 2 * t);
  const column = new Int32Array(width);
  const columnWeight = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const u = x / cell;
    column[x] = Math.floor(u);
    columnWeight[x] = smooth(u - column[x]);
  }
  const out = new Float32Array(width * height);
  const row = new Float32Array(gridWidth);
  for (let y = 0; y < height; y++) {
    const v = y / cell;
    const gy = Math.floor(v);
    const s = smooth(v - gy);
    const top = gy * gridWidth;
    const bottom = top + gridWidth;
    for (let gx = 0; gx < gridWidth; gx++) row[gx] = grid[top + gx] * (1 - s) + grid[bottom + gx] * s;
    const base = y * width;
    for (let x = 0; x < width; x++) {
      const a = row[column[x]];
      out[base + x] = a + (row[column[x] + 1] - a) * columnWeight[x];
    }
  }
  return out;
}

function gaussian(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(TAU * rng.next());
}

function clampByte(value: number): number {
  return value < 0 ? 0 : value > 255 ? 255 : Math.round(value);
}

/** The background: lighting gradient, panels (some striped like shelves of books), multi-scale texture. */
function makeBackground(rng: Rng, width: number, height: number, scale: number) {
  const cw = chromaWidth(width);
  const ch = chromaHeight(height);
  const luma = new Float32Array(width * height);
  const u = new Float32Array(cw * ch).fill(128);
  const v = new Float32Array(cw * ch).fill(128);
  const light = rng.next();
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dx = x / width - light;
      luma[y * width + x] = 150 - 50 * (y / height) - 40 * dx * dx;
    }
  }
  const panels = 12;
  for (let p = 0; p < panels; p++) {
    const pw = Math.max(2, Math.round(width * (0.08 + 0.3 * rng.next())));
    const ph = Math.max(2, Math.round(height * (0.08 + 0.4 * rng.next())));
    const px = Math.floor(rng.next() * (width - pw / 2));
    const py = Math.floor(rng.next() * (height - ph / 2));
    const tone = (rng.next() - 0.5) * 90;
    const du = (rng.next() - 0.5) * 36;
    const dv = (rng.next() - 0.5) * 36;
    const striped = rng.next() < 0.4;
    const stripe = Math.max(2, Math.round(scale * (0.01 + 0.02 * rng.next())));
    const stripeTones = Array.from({ length: 16 }, () => (rng.next() - 0.5) * 70);
    for (let y = py; y < Math.min(height, py + ph); y++) {
      for (let x = px; x < Math.min(width, px + pw); x++) {
        const edge = x === px || y === py || x === px + pw - 1 || y === py + ph - 1 ? -25 : 0;
        luma[y * width + x] += tone + edge + (striped ? stripeTones[Math.floor((x - px) / stripe) & 15] : 0);
      }
    }
    for (let y = py >> 1; y < Math.min(ch, (py + ph) >> 1); y++) {
      for (let x = px >> 1; x < Math.min(cw, (px + pw) >> 1); x++) {
        u[y * cw + x] += du;
        v[y * cw + x] += dv;
      }
    }
  }
  const octaves: [number, number][] = [
    [scale / 5, 40],
    [scale / 18, 26],
    [Math.max(2, scale / 70), 18],
    [2, 12],
  ];
  for (const [cell, amplitude] of octaves) {
    const n = valueNoise(rng, width, height, Math.max(2, cell));
    for (let i = 0; i < luma.length; i++) luma[i] += amplitude * (n[i] - 0.5);
  }
  for (const plane of [u, v]) {
    const n = valueNoise(rng, cw, ch, Math.max(2, scale / 12));
    for (let i = 0; i < plane.length; i++) plane[i] += 24 * (n[i] - 0.5);
  }
  const toBytes = (plane: Float32Array) => Uint8Array.from(plane, clampByte);
  return { luma: toBytes(luma), u: toBytes(u), v: toBytes(v) };
}

/** A sprite of size w x h whose coverage comes from `distance`, a signed distance to its outline in pixels (negative inside). */
function makeSprite(
  rng: Rng,
  width: number,
  height: number,
  distance: (x: number, y: number) => number,
  base: number,
  contrast: number,
  cell: number,
  stripes: number,
  /** Brightening of the interior towards the centre (a hint of volume), in levels per pixel from the edge. */
  shade: number,
): Sprite {
  const alpha = new Uint8Array(width * height);
  const texture = new Uint8Array(width * height);
  const n = valueNoise(rng, width, height, Math.max(1.5, cell));
  const fine = valueNoise(rng, width, height, 1.5);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const d = distance(x + 0.5, y + 0.5);
      alpha[i] = clampByte(255 * Math.min(1, Math.max(0, 0.5 - d)));
      const band = stripes > 0 ? Math.sin((TAU * (x + 0.6 * y)) / stripes) * contrast * 0.5 : 0;
      texture[i] = clampByte(base + band + contrast * (n[i] - 0.5) + 14 * (fine[i] - 0.5) + shade * Math.min(6, Math.max(0, -d)));
    }
  }
  return { width, height, texture, alpha };
}

function makeShape(rng: Rng, frameWidth: number, frameHeight: number, scale: number, sizeFraction: number, speed: number): Shape {
  const size = Math.max(2, scale * sizeFraction * (0.8 + 0.4 * rng.next()));
  const aspect = 0.6 + rng.next();
  const w = Math.max(2, Math.round(size * Math.sqrt(aspect)));
  const h = Math.max(2, Math.round(size / Math.sqrt(aspect)));
  const elliptic = rng.next() < 0.5;
  const corner = Math.min(w, h) * 0.25 * rng.next();
  const rx = w / 2;
  const ry = h / 2;
  /** Signed distance to the outline in luma pixels (negative inside). */
  const lumaDistance = (x: number, y: number) => {
    const dx = x - rx;
    const dy = y - ry;
    if (elliptic) return (Math.sqrt((dx * dx) / (rx * rx) + (dy * dy) / (ry * ry)) - 1) * Math.min(rx, ry);
    const qx = Math.abs(dx) - rx + corner;
    const qy = Math.abs(dy) - ry + corner;
    return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - corner;
  };
  const base = 30 + 190 * rng.next();
  const contrast = 20 + 50 * rng.next();
  const cell = Math.max(1.5, size * (0.03 + 0.1 * rng.next()));
  const stripes = rng.next() < 0.4 ? Math.max(3, size * (0.05 + 0.1 * rng.next())) : 0;
  const luma = makeSprite(rng, w, h, lumaDistance, base, contrast, cell, stripes, 2);
  const cw = chromaWidth(w);
  const chh = chromaHeight(h);
  // Chroma pixel (x, y) covers luma pixels (2x, 2y)..(2x+1, 2y+1); distances in chroma pixels.
  const halfDistance = (x: number, y: number) => lumaDistance(2 * x, 2 * y) / 2;
  const u = makeSprite(rng, cw, chh, halfDistance, 128 + (rng.next() - 0.5) * 80, 14, cell / 2, 0, 0);
  const v = makeSprite(rng, cw, chh, halfDistance, 128 + (rng.next() - 0.5) * 80, 14, cell / 2, 0, 0);
  // Big shapes drift slowly near their place; small ones cross the frame quickly.
  const reach = 0.15 + 0.35 * speed;
  return {
    luma,
    u,
    v,
    centre: [frameWidth * (0.2 + 0.6 * rng.next()), frameHeight * (0.25 + 0.5 * rng.next())],
    amplitude: [frameWidth * reach * (0.5 + 0.5 * rng.next()), frameHeight * reach * (0.3 + 0.5 * rng.next())],
    frequency: [0.04 + 0.4 * speed * (0.5 + rng.next()), 0.03 + 0.3 * speed * (0.5 + rng.next())],
    phase: [TAU * rng.next(), TAU * rng.next()],
    wobble: size * 0.04 * rng.next(),
    wobbleFrequency: 0.5 + 1.5 * rng.next(),
  };
}

/** Blends `sprite` into a plane at (left, top), clipped to the plane. */
function drawSprite(plane: Uint8Array, planeWidth: number, planeHeight: number, sprite: Sprite, left: number, top: number): void {
  const x0 = Math.max(0, left);
  const y0 = Math.max(0, top);
  const x1 = Math.min(planeWidth, left + sprite.width);
  const y1 = Math.min(planeHeight, top + sprite.height);
  const { texture, alpha, width } = sprite;
  for (let y = y0; y < y1; y++) {
    let out = y * planeWidth + x0;
    let src = (y - top) * width + (x0 - left);
    for (let x = x0; x < x1; x++, out++, src++) {
      const a = alpha[src];
      if (a === 255) plane[out] = texture[src];
      else if (a !== 0) plane[out] += ((texture[src] - plane[out]) * a + 128) >> 8;
    }
  }
}

/**
 * Maps every sample of a plane through `lut` and adds sensor noise from
 * `noise` (row y starts at table offset start + y * step), clamping to 0..255.
 */
function toneAndNoise(plane: Uint8Array, width: number, height: number, lut: Int16Array, noise: Int8Array, start: number, step: number): void {
  const mask = (1 << NOISE_TABLE_BITS) - 1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const offset = ((start + y * step) & mask) - row;
    for (let p = row; p < row + width; p++) {
      const value = lut[plane[p]] + noise[offset + p];
      plane[p] = value < 0 ? 0 : value > 255 ? 255 : value;
    }
  }
}

export class SyntheticScene implements VideoSource {
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly frameCount = undefined;
  readonly description: string;
  private readonly seed: string;
  private closed = false;
  /** The background is larger than the frame by 2 * margin so that the camera can pan. */
  private readonly margin: [number, number];
  private readonly background: { luma: Uint8Array; u: Uint8Array; v: Uint8Array; width: number; height: number };
  private readonly shapes: Shape[];
  private readonly lumaNoise: Int8Array;
  private readonly chromaNoise: Int8Array;
  private readonly global: { panPeriod: [number, number]; panPhase: [number, number]; lightPhase: number; tintPhase: [number, number] };

  constructor(options: SyntheticSceneOptions = {}) {
    this.width = options.width ?? 1280;
    this.height = options.height ?? 720;
    this.fps = options.fps ?? 60;
    const noise = options.noise ?? 1.5;
    checkDimensions(this.width, this.height, 'synthetic scene');
    if (!(typeof this.fps === 'number' && Number.isFinite(this.fps) && this.fps > 0 && this.fps <= 1000)) {
      throw new RangeError(`synthetic scene: fps must be a number in (0, 1000], got ${this.fps}`);
    }
    if (!(typeof noise === 'number' && Number.isFinite(noise) && noise >= 0 && noise <= 40)) {
      throw new RangeError(`synthetic scene: noise must be a number in 0..40, got ${noise}`);
    }
    const seed = options.seed ?? 1;
    if (typeof seed !== 'string' && !Number.isFinite(seed)) throw new RangeError(`synthetic scene: seed must be a string or a finite number, got ${seed}`);
    this.seed = String(seed);
    this.description = `synthetic ${this.width}x${this.height} at ${this.fps} fps, seed ${this.seed}`;
    const assets = sceneAssets(this.width, this.height, noise, this.seed);
    this.margin = assets.margin;
    this.background = assets.background;
    this.shapes = assets.shapes;
    this.lumaNoise = assets.lumaNoise;
    this.chromaNoise = assets.chromaNoise;
    this.global = assets.global;
  }

  /** Frame `index` as a fresh picture (synchronously). */
  render(index: number): Picture {
    const data = new Uint8Array(i420Size(this.width, this.height));
    this.renderInto(index, data);
    return { width: this.width, height: this.height, data };
  }

  /** Where everything is in frame `index`: the camera's pan, each shape's corner, the tone curve, the noise rows. */
  private layout(index: number): FrameLayout {
    checkFrameIndex(index, this.description);
    const { global } = this;
    const t = index / this.fps;
    // The camera pans slowly across the larger background.
    const [mx, my] = this.margin;
    const panX = mx + Math.round((mx - 1) * Math.sin((TAU * t) / global.panPeriod[0] + global.panPhase[0]));
    const panY = my + Math.round((my - 1) * Math.sin((TAU * t) / global.panPeriod[1] + global.panPhase[1]));
    const corners = new Int32Array(2 * this.shapes.length);
    for (const [k, shape] of this.shapes.entries()) {
      const wob = shape.wobble * Math.sin(TAU * shape.wobbleFrequency * t);
      const centreX = shape.centre[0] + shape.amplitude[0] * Math.sin(TAU * shape.frequency[0] * t + shape.phase[0]) + wob;
      const centreY = shape.centre[1] + shape.amplitude[1] * Math.sin(TAU * shape.frequency[1] * t + shape.phase[1]) - wob;
      // Even positions keep the chroma sprite aligned with the luma sprite.
      corners[2 * k] = 2 * Math.round((centreX - shape.luma.width / 2) / 2);
      corners[2 * k + 1] = 2 * Math.round((centreY - shape.luma.height / 2) / 2);
    }
    // Gentle global changes (exposure, white balance).
    const gain = 1 + 0.06 * Math.sin((TAU * t) / 11 + global.lightPhase);
    const offset = 5 * Math.sin((TAU * t) / 7 + global.lightPhase);
    const lut = new Int16Array(256);
    for (let i = 0; i < 256; i++) lut[i] = Math.round(i * gain + offset);
    const frameRng = createRng(`synthetic-scene/${this.seed}/frame/${index}`);
    const noiseStart = frameRng.int(1 << NOISE_TABLE_BITS);
    const noiseStep = 2 * frameRng.int(1 << (NOISE_TABLE_BITS - 2)) + 1;
    return { t, panX, panY, corners, lut, noiseStart, noiseStep };
  }

  /** Writes frame `index` into `data` (an I420 buffer of this scene's size). */
  renderInto(index: number, data: Uint8Array): void {
    const layout = this.layout(index);
    const { width, height, background: bg, global } = this;
    if (!(data instanceof Uint8Array) || data.length !== i420Size(width, height)) {
      throw new RangeError(`${this.description}: the output buffer must be a Uint8Array of ${i420Size(width, height)} bytes`);
    }
    const { t, panX, panY, corners, noiseStart: start, noiseStep: step } = layout;
    const cw = chromaWidth(width);
    const ch = chromaHeight(height);
    const bcw = chromaWidth(bg.width);
    const luma = data.subarray(0, width * height);
    const u = data.subarray(width * height, width * height + cw * ch);
    const v = data.subarray(width * height + cw * ch);

    for (let y = 0; y < height; y++) {
      const from = (y + panY) * bg.width + panX;
      luma.set(bg.luma.subarray(from, from + width), y * width);
    }
    const cx = panX >> 1;
    const cy = panY >> 1;
    for (let y = 0; y < ch; y++) {
      const from = (y + cy) * bcw + cx;
      u.set(bg.u.subarray(from, from + cw), y * cw);
      v.set(bg.v.subarray(from, from + cw), y * cw);
    }

    // Shapes, largest (farthest) first, so the small fast ones pass in front.
    for (const [k, shape] of this.shapes.entries()) {
      const left = corners[2 * k];
      const top = corners[2 * k + 1];
      drawSprite(luma, width, height, shape.luma, left, top);
      drawSprite(u, cw, ch, shape.u, left >> 1, top >> 1);
      drawSprite(v, cw, ch, shape.v, left >> 1, top >> 1);
    }

    // Exposure and sensor noise, in one clamped pass per plane; then white balance.
    toneAndNoise(luma, width, height, layout.lut, this.lumaNoise, start, step);
    const tints = [3 * Math.sin((TAU * t) / 13 + global.tintPhase[0]), 3 * Math.sin((TAU * t) / 17 + global.tintPhase[1])];
    for (const [k, plane] of [u, v].entries()) {
      const shift = Math.round(tints[k]);
      const tint = new Int16Array(256);
      for (let i = 0; i < 256; i++) tint[i] = i + shift;
      toneAndNoise(plane, cw, ch, tint, this.chromaNoise, start + (k + 1) * 7919 * step, step);
    }
  }

  /**
   * The luma sample at (x, y) of the frame with `layout`, computed alone: the
   * same background sample, sprite blends, tone curve and noise as renderInto
   * applies to that position, so it equals renderInto's byte there.
   */
  private lumaAt(layout: FrameLayout, x: number, y: number): number {
    const { width, height, background: bg } = this;
    if (!(Number.isInteger(x) && Number.isInteger(y) && x >= 0 && x < width && y >= 0 && y < height)) {
      throw new RangeError(`${this.description}: luma sample (${x}, ${y}) is outside the ${width}x${height} picture`);
    }
    let value = bg.luma[(y + layout.panY) * bg.width + x + layout.panX];
    for (let k = 0; k < this.shapes.length; k++) {
      const sprite = this.shapes[k].luma;
      const sx = x - layout.corners[2 * k];
      const sy = y - layout.corners[2 * k + 1];
      if (sx < 0 || sy < 0 || sx >= sprite.width || sy >= sprite.height) continue;
      const i = sy * sprite.width + sx;
      const a = sprite.alpha[i];
      // As drawSprite's store into a Uint8Array: modulo 256.
      if (a === 255) value = sprite.texture[i];
      else if (a !== 0) value = (value + (((sprite.texture[i] - value) * a + 128) >> 8)) & 0xff;
    }
    const mask = (1 << NOISE_TABLE_BITS) - 1;
    const toned = layout.lut[value] + this.lumaNoise[((layout.noiseStart + y * layout.noiseStep) & mask) + x];
    return toned < 0 ? 0 : toned > 255 ? 255 : toned;
  }

  /**
   * Frame `index` as a fresh picture whose pixels are rendered when its `data`
   * is first read; its lumaAt(x, y) computes single luma samples without
   * rendering the frame (what the model codec reads).
   */
  async frame(index: number): Promise<SampledPicture> {
    if (this.closed) throw new Error(`${this.description}: the video source is closed`);
    const layout = this.layout(index);
    return lazyPicture(
      this.width,
      this.height,
      () => this.render(index).data,
      (x, y) => this.lumaAt(layout, x, y),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** What a scene draws from, made from its seed alone and only read afterwards: shared by scenes of the same size, noise and seed. */
interface SceneAssets {
  readonly margin: [number, number];
  readonly background: { luma: Uint8Array; u: Uint8Array; v: Uint8Array; width: number; height: number };
  readonly shapes: Shape[];
  readonly lumaNoise: Int8Array;
  readonly chromaNoise: Int8Array;
  readonly global: { panPeriod: [number, number]; panPhase: [number, number]; lightPhase: number; tintPhase: [number, number] };
}

/** The assets of the scenes made last (a run of the simulator makes one scene; a sweep of runs in one process, many alike). */
const ASSETS = new Map<string, SceneAssets>();
const ASSETS_KEPT = 4;

function sceneAssets(width: number, height: number, noise: number, seed: string): SceneAssets {
  const key = JSON.stringify([width, height, noise, seed]);
  let assets = ASSETS.get(key);
  if (assets === undefined) {
    assets = makeSceneAssets(width, height, noise, seed);
    if (ASSETS.size >= ASSETS_KEPT) ASSETS.delete(ASSETS.keys().next().value!);
  } else {
    ASSETS.delete(key);
  }
  ASSETS.set(key, assets);
  return assets;
}

function makeSceneAssets(width: number, height: number, noise: number, seed: string): SceneAssets {
  const rng = createRng(`synthetic-scene/${seed}`);
  const scale = Math.min(width, height);
  const margin: [number, number] = [Math.ceil(width * 0.04) + 2, Math.ceil(height * 0.03) + 2];
  const bw = width + 2 * margin[0];
  const bh = height + 2 * margin[1];
  const background = { ...makeBackground(rng.fork('background'), bw, bh, scale), width: bw, height: bh };
  const sizes: [number, number][] = [
    [0.5, 0.05],
    [0.38, 0.15],
    [0.28, 0.3],
    [0.2, 0.5],
    [0.14, 0.6],
    [0.09, 0.8],
    [0.05, 1],
  ];
  const shapeRng = rng.fork('shapes');
  const shapes = sizes.map(([size, speed]) => makeShape(shapeRng, width, height, scale, size, speed));
  const noiseRng = rng.fork('noise');
  const table = (sd: number) => {
    const values = new Int8Array((1 << NOISE_TABLE_BITS) + width);
    for (let i = 0; i < values.length; i++) values[i] = Math.max(-127, Math.min(127, Math.round(sd * gaussian(noiseRng))));
    return values;
  };
  const lumaNoise = table(noise);
  const chromaNoise = table(noise / 2);
  const g = rng.fork('global');
  const global: SceneAssets['global'] = {
    panPeriod: [19 + 10 * g.next(), 23 + 12 * g.next()],
    panPhase: [TAU * g.next(), TAU * g.next()],
    lightPhase: TAU * g.next(),
    tintPhase: [TAU * g.next(), TAU * g.next()],
  };
  return { margin, background, shapes, lumaNoise, chromaNoise, global };
}

export function createSyntheticScene(options: SyntheticSceneOptions = {}): SyntheticScene {
  return new SyntheticScene(options);
}
