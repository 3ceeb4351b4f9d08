// Pure parsers for the /proc files that tell whether a game has bound its ports.
import type { Protocol } from '../runtime';

export interface ProcNetSocket {
  localPort: number;
  /** Hex state code as printed by the kernel, e.g. '0A' (TCP LISTEN), '07' (UDP unconnected). */
  state: string;
  inode: number;
}

export const TCP_LISTEN = '0A';

/** Parse /proc/net/{tcp,tcp6,udp,udp6}: one socket per line after the header. */
export function parseProcNet(text: string): ProcNetSocket[] {
  const sockets: ProcNetSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const local = fields[1];
    const localPort = parseInt(local.slice(local.lastIndexOf(':') + 1), 16);
    const inode = Number(fields[9]);
    if (Number.isNaN(localPort) || Number.isNaN(inode)) continue;
    sockets.push({ localPort, state: fields[3].toUpperCase(), inode });
  }
  return sockets;
}

/**
 * Inodes of the sockets that hold `port`: listening sockets for TCP (an outgoing connection
 * from that port does not serve anything), any bound socket for UDP.
 */
export function boundInodes(sockets: ProcNetSocket[], protocol: Protocol, port: number): number[] {
  return sockets
    .filter((s) => s.localPort === port && (protocol === 'udp' || s.state === TCP_LISTEN) && s.inode !== 0)
    .map((s) => s.inode);
}

/** The inode of a `/proc/<pid>/fd/<n>` link target like `socket:[12345]`, or null for other files. */
export function parseSocketLink(target: string): number | null {
  const match = /^socket:\[(\d+)\]$/.exec(target);
  return match ? Number(match[1]) : null;
}

/** Pids in a `/proc/<pid>/task/<tid>/children` file (space separated). */
export function parseChildPids(text: string): number[] {
  return text.split(/\s+/).filter(Boolean).map(Number).filter(Number.isInteger);
}
