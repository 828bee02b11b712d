// A TUN device (native-tun/, built by `npm install`): each read and each
// write is one bare IP packet. Reading runs on the event loop without
// blocking it (the addon polls the non-blocking fd through libuv and hands
// over every packet ready at once); writing never blocks either: when the
// device's queue is full the packet is dropped, as by a full interface, and
// counted.

import { close as closeFd, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

type ReaderHandle = { readonly __tunReader: unique symbol };

interface NativeTun {
  open(name: string, namespacePath?: string): { fd: number; name: string };
  startReading(fd: number, maxBytes: number, callback: (packets: Buffer[], errorCode?: string) => void): ReaderHandle;
  stopReading(reader: ReaderHandle): void;
  /** Bytes written, or -1 when the device's queue is full. */
  write(fd: number, packet: Uint8Array): number;
  close(fd: number): void;
  /** `file` read (writeIn: written) by a thread inside the network namespace at `namespacePath` (native-tun/src/netns.c). */
  readIn(namespacePath: string, file: string): string;
  writeIn(namespacePath: string, file: string, text: string): void;
  /** What `ip netns del` does: detach the namespace's bind mount and remove the file. */
  removeNamespace(namespacePath: string): void;
}

const addonPath = fileURLToPath(new URL('../../native-tun/build/Release/tun.node', import.meta.url));
let loaded: NativeTun | undefined;

/** The addon, loaded on first use; throws one clear line when it has not been built. */
export function nativeTun(): NativeTun {
  if (loaded) return loaded;
  if (!existsSync(addonPath)) throw new Error(`native TUN addon not built (${addonPath} missing): run \`npm install\` (Linux only)`);
  loaded = createRequire(import.meta.url)(addonPath) as NativeTun;
  return loaded;
}

export interface TunCounters {
  /** Packets read from the device and handed on. */
  readPackets: number;
  /** Packets written to the device. */
  writtenPackets: number;
  /** Packets the device refused: its queue was full, or the kernel rejected the packet (not an IP packet). */
  writeDrops: number;
}

export class TunDevice {
  private reader: ReaderHandle | undefined;
  private closed = false;
  private readonly counters: TunCounters = { readPackets: 0, writtenPackets: 0, writeDrops: 0 };

  private constructor(
    readonly name: string,
    private readonly fd: number,
  ) {}

  /**
   * Creates a TUN device (IFF_TUN | IFF_NO_PI) named `name` ("" or a pattern
   * with %d: the kernel numbers it). It lasts while this object is open (or
   * the process lives): closing it, or the process's end, removes it. It is
   * made in the network namespace at `namespacePath` (a thread of this
   * process joins it to create the device) if given, else in this process's.
   * Throws an Error with the errno's `code` (EACCES/EPERM without
   * CAP_NET_ADMIN, ENOENT without /dev/net/tun, EBUSY if the name is taken).
   */
  static open(name: string, namespacePath?: string): TunDevice {
    const { fd, name: actual } = nativeTun().open(name, namespacePath);
    return new TunDevice(actual, fd);
  }

  /**
   * Calls `onPacket` with each packet the kernel sends into the device;
   * `onError` once if reading fails. A packet longer than maxBytes (which the
   * device's MTU should prevent) is handed on cut to maxBytes + 1 bytes, so
   * that the caller sees it is too long and counts it.
   */
  startReading(maxBytes: number, onPacket: (packet: Buffer) => void, onError: (error: Error) => void): void {
    if (this.closed) throw new Error(`TUN device ${this.name} is closed`);
    if (this.reader) throw new Error(`TUN device ${this.name} is being read already`);
    this.reader = nativeTun().startReading(this.fd, maxBytes, (packets, errorCode) => {
      for (const packet of packets) {
        if (this.closed) return;
        this.counters.readPackets++;
        onPacket(packet);
      }
      if (errorCode !== undefined && !this.closed) onError(Object.assign(new Error(`reading TUN device ${this.name} failed: ${errorCode}`), { code: errorCode }));
    });
  }

  /** The device's file descriptor, for a reader of its own (the packet pump, src/net/packet-pump.ts, which reads a duplicate); counts packets it read with countRead(). */
  fileDescriptor(): number {
    if (this.closed) throw new Error(`TUN device ${this.name} is closed`);
    return this.fd;
  }

  /** Counts packets another reader took from the device (see fileDescriptor). */
  countRead(packets: number): void {
    this.counters.readPackets += packets;
  }

  /** Stops reading (packets the kernel sends into the device from now on wait there, or are dropped when its queue is full). */
  stopReading(): void {
    if (this.reader) nativeTun().stopReading(this.reader);
    this.reader = undefined;
  }

  /** Sends one IP packet out of the device (into the kernel); false if it was dropped. */
  write(packet: Uint8Array): boolean {
    if (this.closed) return false;
    let written: number;
    try {
      written = nativeTun().write(this.fd, packet);
    } catch {
      // EINVAL (not an IP packet the kernel takes), EIO (the device is down): the packet is lost, as on a wire.
      written = -1;
    }
    if (written < 0) {
      this.counters.writeDrops++;
      return false;
    }
    this.counters.writtenPackets++;
    return true;
  }

  stats(): TunCounters {
    return { ...this.counters };
  }

  /** Stops reading and closes the device (which the kernel then removes). Idempotent. */
  close(): void {
    if (this.beginClose()) nativeTun().close(this.fd);
  }

  /**
   * As close(), on Node's thread pool: the kernel removes the device within
   * the close, waiting for the network stack to let go of it (tens of ms),
   * so devices closed this way are removed side by side while the event
   * loop goes on. Idempotent; resolves once the device is closed.
   */
  closeInBackground(): Promise<void> {
    if (!this.beginClose()) return Promise.resolve();
    return new Promise((resolve, reject) => closeFd(this.fd, (error) => (error ? reject(error) : resolve())));
  }

  /** Marks the device closed and stops reading it; false if it was closed already. */
  private beginClose(): boolean {
    if (this.closed) return false;
    this.closed = true;
    this.stopReading();
    return true;
  }
}
