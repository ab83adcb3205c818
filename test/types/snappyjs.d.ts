/** snappyjs 0.7 ships no types: the one function the tests and bench/snappy-decode.ts call (block format). */
declare module "snappyjs" {
  /** Throws when the block is malformed or announces more than `maxLength` bytes. */
  export function uncompress<T extends Uint8Array | ArrayBuffer>(compressed: T, maxLength?: number): T;
  export function compress<T extends Uint8Array | ArrayBuffer>(uncompressed: T): T;
  const snappy: { uncompress: typeof uncompress; compress: typeof compress };
  export default snappy;
}
