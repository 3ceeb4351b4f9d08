// The web console (apps/gateway/console, bundled into dist/console by the build): index.html at /console,
// hashed assets under /console/assets/. Outside /api, so not in the OpenAPI document. Every file is read
// once at start; a strict Content-Security-Policy lets the page load and call only this origin.
import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Access } from '../http/guard';

// src/controllers and dist/controllers both sit two levels below the gateway's root.
const CONSOLE_DIR = path.join(__dirname, '..', '..', 'dist', 'console');

export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
  + "base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

interface Asset { body: Buffer; type: string }

function load(): { index: Buffer | null; assets: Map<string, Asset> } {
  const assets = new Map<string, Asset>();
  if (!existsSync(path.join(CONSOLE_DIR, 'index.html'))) return { index: null, assets };
  for (const name of readdirSync(path.join(CONSOLE_DIR, 'assets'))) {
    const type = TYPES[path.extname(name)];
    if (type) assets.set(name, { body: readFileSync(path.join(CONSOLE_DIR, 'assets', name)), type });
  }
  return { index: readFileSync(path.join(CONSOLE_DIR, 'index.html')), assets };
}

const notFound = (reply: FastifyReply, error: string) => reply.status(404).type('application/json').send({ error, status: 404 });

@Controller('console')
export class ConsoleController {
  private readonly files = load();

  @Get()
  @Access({ auth: 'none' })
  index(@Res() reply: FastifyReply): void {
    if (!this.files.index) {
      notFound(reply, 'The console is not built (npm run build)');
      return;
    }
    // Revalidated on every load: it names the current hashed assets.
    void reply.headers(securityHeaders()).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(this.files.index);
  }

  @Get('assets/:file')
  @Access({ auth: 'none' })
  asset(@Param('file') file: string, @Res() reply: FastifyReply): void {
    const asset = this.files.assets.get(file);
    if (!asset) {
      notFound(reply, 'No such console asset');
      return;
    }
    // Content-hashed names: a changed file is a new name, so an asset can be cached for good.
    void reply.headers(securityHeaders()).header('cache-control', 'public, max-age=31536000, immutable').type(asset.type).send(asset.body);
  }
}

function securityHeaders(): Record<string, string> {
  return { 'content-security-policy': CONSOLE_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' };
}
