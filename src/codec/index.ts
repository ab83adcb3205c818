/**
 * The point codec shared by the agent buffer and the collector's chunks: one series' points
 * as one compressed, checksummed block. See docs/storage.md, "Point codec".
 */
export { PointCodecError } from "./errors.ts";
export {
  BLOCK_VERSION,
  type BlockInfo,
  type BlockPoints,
  type DecodedBlock,
  decodePoints,
  decodePointsInto,
  type EncodeOptions,
  encodePoints,
  inspectBlock,
  MAX_POINTS,
} from "./point-block.ts";
