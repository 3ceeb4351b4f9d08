export const EVENT_STORE = Symbol('EVENT_STORE');
export const CHECKPOINTS = Symbol('CHECKPOINTS');
export const BUS = Symbol('BUS');
export const READ_MODELS = Symbol('READ_MODELS');
export const CONFIG = Symbol('CONFIG');
export const CLOCK = Symbol('CLOCK');
export const PLATFORM = Symbol('PLATFORM');
/** The BlobStore (uploads and build artifacts in PostgreSQL). */
export const BLOBS = Symbol('BLOBS');

export type Clock = () => Date;
