// Reads and writes faiss IndexFlatIP files (index.bin) directly, so vectors never go through faiss-node's slow JS-array add().
import { CortexError } from '../../errors.js';
import { faiss, type FaissModule } from './faiss.js';

export type FaissIndex = InstanceType<FaissModule['IndexFlatIP']>;

/** faiss's four-character code for IndexFlatIP (IndexFlatL2 is "IxF2"). */
const FLAT_IP_FOURCC = 'IxFI';
/** The two unused int64 fields faiss writes in every index header (1 << 20, faiss's historic dummies). */
const HEADER_DUMMY = 1n << 20n;
/** fourcc + d (i32) + ntotal (i64) + 2 dummies (i64) + is_trained (u8) + metric (i32) + vector size (u64). */
export const FLAT_HEADER_BYTES = 4 + 4 + 8 + 8 + 8 + 1 + 4 + 8;
/** faiss::METRIC_INNER_PRODUCT. */
const METRIC_INNER_PRODUCT = 0;

/** index.bin could not be read as an IndexFlatIP; the message says what was wrong. */
export class FlatIndexFormatError extends CortexError {
  constructor(message: string) {
    super('index_format', message);
  }
}

/**
 * The bytes faiss 1.7.3 writes for an IndexFlatIP of `dimension` holding `vectors` (row-major, count × dimension
 * floats): a 45-byte header then the raw floats. Byte-identical to faiss-node's `toBuffer()` (a test checks it).
 */
export function encodeFlatIndex(dimension: number, vectors: Float32Array): Buffer {
  if (vectors.length % dimension !== 0) throw new RangeError(`vector data of ${vectors.length} floats is not a multiple of dimension ${dimension}`);
  const count = vectors.length / dimension;
  const header = Buffer.alloc(FLAT_HEADER_BYTES);
  let offset = header.write(FLAT_IP_FOURCC, 0, 'latin1');
  offset = header.writeInt32LE(dimension, offset);
  offset = header.writeBigInt64LE(BigInt(count), offset);
  offset = header.writeBigInt64LE(HEADER_DUMMY, offset);
  offset = header.writeBigInt64LE(HEADER_DUMMY, offset);
  offset = header.writeUInt8(1, offset);
  offset = header.writeInt32LE(METRIC_INNER_PRODUCT, offset);
  header.writeBigUInt64LE(BigInt(vectors.length), offset);
  return Buffer.concat([header, Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength)]);
}

/** The dimension and vector count of IndexFlatIP file bytes, after checking the header and length. @throws FlatIndexFormatError */
export function readFlatIndexHeader(bytes: Uint8Array): { dimension: number; count: number } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < FLAT_HEADER_BYTES) throw new FlatIndexFormatError(`index.bin is ${buf.length} bytes, shorter than a faiss header`);
  const fourcc = buf.toString('latin1', 0, 4);
  if (fourcc !== FLAT_IP_FOURCC) throw new FlatIndexFormatError(`index.bin is a faiss "${fourcc}" index, not an IndexFlatIP ("${FLAT_IP_FOURCC}")`);
  const dimension = buf.readInt32LE(4);
  const count = Number(buf.readBigInt64LE(8));
  const metric = buf.readInt32LE(33);
  const floats = Number(buf.readBigUInt64LE(37));
  if (dimension <= 0 || count < 0 || metric !== METRIC_INNER_PRODUCT || floats !== dimension * count) {
    throw new FlatIndexFormatError(`index.bin has an inconsistent header (d=${dimension}, ntotal=${count}, metric=${metric}, floats=${floats})`);
  }
  if (buf.length !== FLAT_HEADER_BYTES + floats * 4) {
    throw new FlatIndexFormatError(`index.bin is ${buf.length} bytes; its header promises ${FLAT_HEADER_BYTES + floats * 4}`);
  }
  return { dimension, count };
}

/** The dimension, count and vectors (a copy, 4-byte aligned) of IndexFlatIP file bytes. @throws FlatIndexFormatError */
export function decodeFlatIndex(bytes: Uint8Array): { dimension: number; count: number; vectors: Float32Array } {
  const { dimension, count } = readFlatIndexHeader(bytes);
  // Copy into a fresh buffer: the source offset may not be 4-byte aligned, which a Float32Array view needs.
  const vectors = new Float32Array(dimension * count);
  new Uint8Array(vectors.buffer).set(bytes.subarray(FLAT_HEADER_BYTES));
  return { dimension, count, vectors };
}

/** A faiss IndexFlatIP loaded from index.bin bytes (faiss itself parses them). @throws FlatIndexFormatError */
export function loadFaissIndex(bytes: Buffer): FaissIndex {
  try {
    return faiss().IndexFlatIP.fromBuffer(bytes);
  } catch (err) {
    throw new FlatIndexFormatError(`faiss could not read index.bin: ${(err as Error).message}`);
  }
}

/** A new, empty faiss IndexFlatIP (faiss-node's own add/toBuffer; used to check the encoder against faiss). */
export function newFaissIndex(dimension: number): FaissIndex {
  return new (faiss().IndexFlatIP)(dimension);
}

let encoderChecked = false;

/**
 * Checks once per process that {@link encodeFlatIndex} writes what this faiss build writes (a faiss upgrade could
 * change the layout), so a mismatch is a clear error instead of an index faiss misreads.
 * @throws FlatIndexFormatError when the bytes differ.
 */
export function assertEncoderMatchesFaiss(): void {
  if (encoderChecked) return;
  const sample = [0.5, -1, 2, 3.25, 4, -5];
  const reference = newFaissIndex(3);
  reference.add(sample);
  if (!reference.toBuffer().equals(encodeFlatIndex(3, Float32Array.from(sample)))) {
    throw new FlatIndexFormatError('this faiss build writes IndexFlatIP files in a layout Cortex-R does not know (expected faiss 1.7.x)');
  }
  encoderChecked = true;
}
