/** `--listen`'s address and the Host headers it answers to: pure, so the CLI checks it before loading the SDK. */

/** `HOST:PORT` (or `PORT`, on localhost), as `--listen` takes it. */
export const parseListen = (text: string): { host: string; port: number } | undefined => {
  const match = /^(?:(\[[0-9a-fA-F:]+\]|[^:]+):)?(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (match === null || port > 65_535) return undefined;
  return { host: match[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port };
};

export const hostPort = (host: string, port: number) =>
  host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;

/** The Host headers this server answers to: its own address, and localhost's names when it is local. */
export const allowedHostsOf = (host: string, port: number): string[] => {
  const local = ['127.0.0.1', 'localhost', '::1'].includes(host);
  const names = local ? ['127.0.0.1', 'localhost', '::1'] : [host];
  return names.map((name) => hostPort(name, port));
};
