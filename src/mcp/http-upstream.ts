import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describeThrown } from '../events/untrusted.js';

/**
 * Why a request failed, with its causes: `fetch failed` alone names neither the address nor the
 * reason; its `cause` (`connect ECONNREFUSED 127.0.0.1:1`, an `AggregateError` of both address
 * families) does.
 */
export const withCauses = (error: unknown): string => {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined; depth += 1) {
    if (current instanceof AggregateError && current.errors.length > 0)
      parts.push(current.errors.map((each: unknown) => describeThrown(each)).join('; '));
    else {
      const code = (current as { code?: unknown } | null)?.code;
      const text = describeThrown(current);
      parts.push(text !== '' ? text : typeof code === 'string' ? code : 'unknown error');
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
};

/** The reason an HTTP upstream failed, naming its URL. */
export const httpFailure = (url: URL, error: unknown): Error =>
  new Error(
    error instanceof StreamableHTTPError
      ? `the upstream server ${url.href} answered HTTP ${error.code}: ${describeThrown(error)}`
      : `the upstream server ${url.href} cannot be reached: ${withCauses(error)}`,
  );

/**
 * The SDK's Streamable HTTP client transport, whose errors name the URL and the cause (the SDK's
 * say only `fetch failed`).
 */
export class HttpUpstream implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly inner: StreamableHTTPClientTransport;

  constructor(private readonly url: URL) {
    this.inner = new StreamableHTTPClientTransport(url);
    this.inner.onmessage = (message) => this.onmessage?.(message);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(httpFailure(this.url, error));
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    try {
      await this.inner.send(message);
    } catch (error) {
      throw httpFailure(this.url, error);
    }
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
