import { spawn, ChildProcess } from 'child_process';
import { createServer } from 'net';
import path from 'path';
import { testContext } from '../../connection/testing';
import { DRAFT_PROTOCOL_VERSION, LATEST_SPEC_VERSION } from '../../types';
import { RenderingServerScenario } from './rendering';
import {
  getClientScenario,
  getScenario,
  listClientScenarios,
  listRenderingScenarios,
  listRenderingServerScenarios,
  listScenarios
} from '../index';

const IDS = [
  'sep-0000-rendering-server-declares',
  'sep-0000-rendering-server-result-independent-of-declaration',
  'sep-0000-rendering-server-states-complete',
  'sep-0000-rendering-server-carriers-typed',
  'sep-0000-rendering-server-part-not-complete',
  'sep-0000-rendering-server-cuts-between-records'
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function start(example: string): Promise<[ChildProcess, string]> {
  const port = await freePort();
  const proc = spawn(
    'npx',
    ['tsx', path.join(process.cwd(), 'examples/servers/typescript', example)],
    {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
      // A process group of its own, so that stop() ends the server npx starts, not npx alone.
      detached: process.platform !== 'win32'
    }
  );
  await new Promise<void>((resolve, reject) => {
    const timeout = setTimeout(
      () => reject(new Error(`${example} did not start`)),
      30000
    );
    proc.stdout?.on('data', (data) => {
      if (data.toString().includes('running on')) {
        clearTimeout(timeout);
        resolve();
      }
    });
    proc.on('error', reject);
  });
  return [proc, `http://localhost:${port}/mcp`];
}

function stop(proc: ChildProcess | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!proc || proc.exitCode !== null) return resolve();
    proc.once('exit', () => resolve());
    if (proc.pid !== undefined && process.platform !== 'win32')
      process.kill(-proc.pid, 'SIGTERM');
    else proc.kill('SIGTERM');
  });
}

describe('rendering-server against the everything-server', () => {
  let proc: ChildProcess | undefined;
  let url = '';
  beforeAll(async () => {
    [proc, url] = await start('everything-server.ts');
  }, 35000);
  afterAll(() => stop(proc));

  for (const version of [LATEST_SPEC_VERSION, DRAFT_PROTOCOL_VERSION] as const)
    it(`passes every check under ${version}`, async () => {
      const checks = await new RenderingServerScenario().run(
        testContext(url, version)
      );
      expect(checks.map((c) => [c.id, c.status, c.errorMessage])).toEqual(
        IDS.map((id) => [id, 'SUCCESS', undefined])
      );
    });
});

describe('rendering-server against a server that breaks every rule', () => {
  let proc: ChildProcess | undefined;
  let url = '';
  beforeAll(async () => {
    [proc, url] = await start('rendering-broken-server.ts');
  }, 35000);
  afterAll(() => stop(proc));

  it('fails every check', async () => {
    const checks = await new RenderingServerScenario().run(testContext(url));
    expect(checks.map((c) => [c.id, c.status])).toEqual(
      IDS.map((id) => [id, 'FAILURE'])
    );
    expect(checks.every((c) => c.details?.untestable !== true)).toBe(true);
  });
});

describe('rendering-server against a server without the fixtures', () => {
  let proc: ChildProcess | undefined;
  let url = '';
  beforeAll(async () => {
    [proc, url] = await start('sep-2164-empty-contents.ts');
  }, 35000);
  afterAll(() => stop(proc));

  it('reports each check it cannot exercise as untestable, never as passed or skipped', async () => {
    const checks = await new RenderingServerScenario().run(
      testContext(url, DRAFT_PROTOCOL_VERSION)
    );
    const untestable = checks.filter((c) => c.details?.untestable === true);
    expect(untestable.map((c) => c.id).sort()).toEqual(IDS.slice(1).sort());
    expect(checks.every((c) => c.status === 'FAILURE')).toBe(true);
  });
});

describe('the rendering scenarios are opt-in', () => {
  it('are in their own suite and in no other, all included', () => {
    expect(listRenderingServerScenarios()).toEqual(['rendering-server']);
    expect(listRenderingScenarios()).toEqual(['rendering-client']);
    expect(listClientScenarios()).not.toContain('rendering-server');
    expect(listScenarios()).not.toContain('rendering-client');
    expect(getClientScenario('rendering-server')).toBeDefined();
    expect(getScenario('rendering-client')).toBeDefined();
  });
});
