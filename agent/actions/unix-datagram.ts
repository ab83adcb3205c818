import { FFIType, ptr, read } from "bun:ffi";
import { openLibc } from "../../src/runtime/libc.ts";

/**
 * Sends one datagram to a Unix socket (the system log's /dev/log). Neither Bun nor node:dgram
 * speaks Unix datagram sockets, so this calls the C library's socket(2), connect(2) and
 * send(2) through bun:ffi, loaded on first use (an agent without syslog actions never loads it).
 */

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
/** sizeof(struct sockaddr_un) on Linux: a 2-byte family and a 108-byte path. */
const SOCKADDR_UN = 110;
export const ENOENT = 2;
export const ECONNREFUSED = 111;
/** The socket is a stream socket (some syslog-ng setups). */
export const EPROTOTYPE = 91;

export class SocketError extends Error {
  constructor(
    message: string,
    readonly errno: number,
  ) {
    super(message);
  }
}

type Libc = ReturnType<typeof datagramLibc>;
let libc: Libc | undefined;

function datagramLibc() {
  const symbols = {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    connect: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    send: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i64 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  } as const;
  return openLibc(symbols, "to open a Unix datagram socket with");
}

const errno = (l: Libc) => {
  const p = l.symbols.__errno_location();
  return p === null ? 0 : read.i32(p, 0);
};

/** Sends `message` as one datagram to the socket at `path`; throws SocketError with errno. */
export function sendDatagram(path: string, message: Uint8Array): void {
  const encoded = new TextEncoder().encode(path);
  if (encoded.length >= SOCKADDR_UN - 2) throw new SocketError(`socket path too long: ${path}`, 0);
  libc ??= datagramLibc();
  const l = libc;
  const fd = l.symbols.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new SocketError("socket() failed", errno(l));
  try {
    const addr = new Uint8Array(SOCKADDR_UN);
    new DataView(addr.buffer).setUint16(0, AF_UNIX, true);
    addr.set(encoded, 2);
    if (l.symbols.connect(fd, ptr(addr), SOCKADDR_UN) < 0) {
      const e = errno(l);
      throw new SocketError(`cannot connect to ${path} (errno ${e})`, e);
    }
    const body = message.length > 0 ? message : new Uint8Array(1);
    if (Number(l.symbols.send(fd, ptr(body), message.length, 0)) < 0) {
      const e = errno(l);
      throw new SocketError(`cannot send to ${path} (errno ${e})`, e);
    }
  } finally {
    l.symbols.close(fd);
  }
}
