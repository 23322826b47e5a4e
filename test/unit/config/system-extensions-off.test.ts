import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadHooks } from '../../../src/config/index.js';

describe('loadHooks: systemExtensionsDir null or false', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'cosh-nosys-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('reads no system extensions and warns about nothing', () => {
    for (const off of [null, false] as const) {
      const loaded = loadHooks({ home, workspace: home, systemExtensionsDir: off });
      expect(loaded).toMatchObject({ ok: true, warnings: [], sources: { extensions: [] } });
    }
  });

  it('while a named folder that does not exist is a warning', () => {
    const loaded = loadHooks({ home, workspace: home, systemExtensionsDir: join(home, 'nowhere') });
    expect(loaded.warnings.map((w) => w.file)).toEqual([join(home, 'nowhere')]);
  });

  it('skips a system folder that holds an extension', () => {
    const system = join(home, 'system', 'ext');
    mkdirSync(system, { recursive: true });
    writeFileSync(
      join(system, 'cosh-extension.json'),
      JSON.stringify({
        name: 'ext',
        hooks: { Stop: [{ hooks: [{ type: 'command', name: 'h', command: 'true' }] }] },
      }),
    );
    const on = loadHooks({ home, workspace: home, systemExtensionsDir: join(home, 'system') });
    const off = loadHooks({ home, workspace: home, systemExtensionsDir: null });
    expect(on.ok && on.registry.Stop.map((h) => h.name)).toEqual(['h']);
    expect(off.ok && off.registry.Stop.map((h) => h.name)).toEqual([]);
  });
});
