// What a Mahimahi user finds inside `linkshell --netns`, as Mahimahi's shells
// set it up (src/packet/packetshell.cc, src/util/util.cc):
// - MAHIMAHI_BASE, the host's address on the link, set only when not set
//   already: inside nested shells it keeps naming the outermost shell's
//   host, so `ping $MAHIMAHI_BASE` crosses every nested link;
// - MAHIMAHI_SHELL_PREFIX, with this shell's part appended ("[delay 20 ms] ",
//   "[link] ", nested in order), and PROMPT_COMMAND that puts it before
//   bash's prompt;
// - COMMAND as the invoking user. Mahimahi's tools are setuid root and drop
//   to the real user before exec; linkshell --netns runs as root, so under
//   sudo it drops to SUDO_UID and SUDO_GID with that user's supplementary
//   groups (setpriv --init-groups) and HOME, USER and LOGNAME; run as root
//   without sudo, COMMAND stays root.
import { readFileSync } from 'node:fs';
import { SHELL_NESTING } from '../link-emu/path.ts';
import type { NetnsConfig } from '../linkshell/config.ts';

/** bash's PROMPT_COMMAND as Mahimahi sets it: the prefix before PS1, once. */
export const PROMPT_COMMAND = 'PS1="$MAHIMAHI_SHELL_PREFIX$PS1" PROMPT_COMMAND=';

function seconds(ms: number): string {
  return String(ms / 1000);
}

/**
 * The prompt prefixes of the Mahimahi shells this run stands for, outermost
 * first (SHELL_NESTING: delay, loss, on/off, link), each worded as that
 * Mahimahi tool words it (mm-onoff and mm-intermittent in seconds, as they
 * take them).
 */
export function shellPrefix(config: Pick<NetnsConfig, 'delayMs' | 'uplinkLoss' | 'downlinkLoss' | 'uplinkOnOff' | 'downlinkOnOff'>): string {
  let prefix = '';
  for (const shell of SHELL_NESTING) {
    if (shell === 'delay' && config.delayMs > 0) prefix += `[delay ${config.delayMs} ms] `;
    if (shell === 'loss') {
      if (config.uplinkLoss > 0) prefix += `[loss up=${config.uplinkLoss}] `;
      if (config.downlinkLoss > 0) prefix += `[loss down=${config.downlinkLoss}] `;
    }
    if (shell === 'onoff') {
      for (const [dir, onOff] of [['up', config.uplinkOnOff], ['down', config.downlinkOnOff]] as const) {
        if (onOff) prefix += `[${onOff.periodic ? 'intermittent' : 'onoff'} (${dir}) on=${seconds(onOff.meanOnMs)}s off=${seconds(onOff.meanOffMs)}s] `;
      }
    }
    if (shell === 'link') prefix += '[link] ';
  }
  return prefix;
}

/** The invoking user under sudo: SUDO_UID and SUDO_GID when linkshell runs as root; undefined otherwise (COMMAND keeps linkshell's user). */
export function invokingUser(env: NodeJS.ProcessEnv, uid = process.getuid?.()): { uid: number; gid: number } | undefined {
  if (uid !== 0) return undefined;
  const u = Number(env.SUDO_UID);
  const g = Number(env.SUDO_GID);
  if (!/^\d+$/.test(env.SUDO_UID ?? '') || !/^\d+$/.test(env.SUDO_GID ?? '') || u === 0) return undefined;
  return { uid: u, gid: g };
}

/** The user's name and home from /etc/passwd, if listed. */
function passwdEntry(uid: number, passwd: string): { name: string; home: string } | undefined {
  for (const line of passwd.split('\n')) {
    const [name, , id, , , home] = line.split(':');
    if (id === String(uid) && name) return { name, home: home ?? '/' };
  }
  return undefined;
}

function readPasswd(): string {
  try {
    return readFileSync('/etc/passwd', 'utf8');
  } catch {
    return '';
  }
}

/** COMMAND's environment inside the shell: the caller's, with Mahimahi's variables (and the invoking user's HOME, USER, LOGNAME when dropping to them). */
export function shellEnvironment(parent: NodeJS.ProcessEnv, hostAddress: string, prefix: string, user?: { uid: number }, passwd = readPasswd()): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...parent,
    MAHIMAHI_BASE: parent.MAHIMAHI_BASE || hostAddress,
    MAHIMAHI_SHELL_PREFIX: (parent.MAHIMAHI_SHELL_PREFIX ?? '') + prefix,
    PROMPT_COMMAND,
  };
  const entry = user === undefined ? undefined : passwdEntry(user.uid, passwd);
  if (entry !== undefined) Object.assign(env, { HOME: entry.home, USER: entry.name, LOGNAME: entry.name });
  return env;
}

/**
 * COMMAND run as `user` (setpriv drops the ids and takes the user's
 * supplementary groups; a uid that /etc/passwd does not list gets none), or
 * as it is.
 */
export function asInvokingUser(command: readonly string[], user: { uid: number; gid: number } | undefined, passwd = readPasswd()): string[] {
  if (user === undefined) return [...command];
  const groups = passwdEntry(user.uid, passwd) === undefined ? '--clear-groups' : '--init-groups';
  return ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, groups, '--', ...command];
}
