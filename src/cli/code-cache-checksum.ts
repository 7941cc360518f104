import Module from 'node:module';

/**
 * The 16-byte checksum that heads a code cache file (see launch.ts): the data's CRC-32 where
 * node:zlib has it (Node 20.15 and later), else its MD5. node:crypto costs a hook process about
 * 5 ms to load, zlib about 3, and CRC-32 is several times faster than MD5 over a megabyte of cache.
 * Cache file names hold the Node version, so one file is always checked as it was written.
 */
export function cacheChecksum(data: Buffer): Buffer {
  const { crc32 } = Module.createRequire(__filename)('node:zlib') as Partial<typeof import('node:zlib')>;
  if (typeof crc32 !== 'function') {
    const { createHash } = Module.createRequire(__filename)('node:crypto') as typeof import('node:crypto');
    return createHash('md5').update(data).digest();
  }
  const sum = Buffer.alloc(16);
  sum.writeUInt32BE(crc32(data));
  return sum;
}
