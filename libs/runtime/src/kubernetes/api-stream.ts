// A streaming GET against the API server with the kubeconfig's credentials. The client's Log class
// neither reports a stream that breaks midway nor passes `stream=Stdout|Stderr`; this does both.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiStatusError } from './api-errors';

export async function openApiStream(
  kubeConfig: KubeConfig, path: string, query: Record<string, string | undefined>, signal: AbortSignal,
): Promise<IncomingMessage> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  const options: https.RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(url, { ...options, method: 'GET', signal }, (response) => {
      if (response.statusCode === 200) return resolve(response);
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => reject(new ApiStatusError(response.statusCode ?? 0, body)));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}
