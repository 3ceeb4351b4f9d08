export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
