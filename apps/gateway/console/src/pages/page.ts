import type { Session } from '../session';

/** A page renders into `main` and returns what stops its timers and streams when the route changes. */
export type Page = (main: HTMLElement, session: Session, param: string | undefined) => () => void;

/** Runs `fn` now and every `ms` until disposed; a failed round is shown, the next round tries again. */
export function every(ms: number, fn: () => Promise<void>, onError: (err: unknown) => void): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const round = async () => {
    try {
      await fn();
    } catch (err) {
      if (!stopped) onError(err);
    }
    if (!stopped) timer = setTimeout(round, ms);
  };
  void round();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
