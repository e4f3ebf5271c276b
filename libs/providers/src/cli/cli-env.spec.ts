import { cliChildEnv } from './cli-env';
import { cliPrompt, inlineSystem } from './cli-prompt';

describe('cliChildEnv', () => {
  it('drops API keys, auth tokens, passwords and the store URLs, keeping what the CLI owns and its login', () => {
    const env = cliChildEnv(
      {
        PATH: '/bin',
        HOME: '/home/u',
        ANTHROPIC_API_KEY: 'a',
        ANTHROPIC_AUTH_TOKEN: 'b',
        GEMINI_API_KEY: 'g',
        PGPASSWORD: 'p',
        DATABASE_URL: 'postgres://x',
        REDIS_URL: 'redis://x',
        CLAUDE_CODE_OAUTH_TOKEN: 'subscription-login',
      },
      ['GEMINI_API_KEY'],
      { GEMINI_SYSTEM_MD: '/tmp/s.md' },
    );
    expect(env).toEqual({ PATH: '/bin', HOME: '/home/u', GEMINI_API_KEY: 'g', CLAUDE_CODE_OAUTH_TOKEN: 'subscription-login', GEMINI_SYSTEM_MD: '/tmp/s.md' });
  });
});

describe('cliPrompt', () => {
  it('splits the system prompt off a single turn', () => {
    expect(cliPrompt([{ role: 'system', content: 'S' }, { role: 'user', content: 'U' }])).toEqual({ system: 'S', prompt: 'U' });
    expect(cliPrompt([{ role: 'user', content: 'U' }])).toEqual({ system: null, prompt: 'U' });
  });

  it('puts the system prompt first for CLIs without an override', () => {
    expect(inlineSystem('S', 'U')).toBe('S\n\nU');
    expect(inlineSystem(null, 'U')).toBe('U');
  });
});
