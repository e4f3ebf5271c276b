import { readPartialTurn } from './partial-turn';

const TURN = JSON.stringify({ speaker: 'vc', round: 2, message: 'The moat is "thin":\nno lock-in \u00e9 \ud83d\ude00 at all.', responds_to: ['V1', 'D3'] });

describe('readPartialTurn', () => {
  it('reads the round and the message of a whole turn', () => {
    expect(readPartialTurn(TURN)).toEqual({ round: 2, message: 'The moat is "thin":\nno lock-in é 😀 at all.' });
  });

  it('reads every prefix as a prefix of the message, growing, with the round once its number is complete', () => {
    let before = '';
    for (let n = 0; n <= TURN.length; n++) {
      const turn = readPartialTurn(TURN.slice(0, n));
      expect(turn.message.startsWith(before)).toBe(true);
      before = turn.message;
      if (TURN.slice(0, n).includes('"message"')) expect(turn.round).toBe(2);
    }
    expect(before).toBe(JSON.parse(TURN).message);
  });

  it('reads a message that comes before the round, and ignores keys it does not need', () => {
    const turn = readPartialTurn('{ "message" : "first", "extra": {"a": [1, "}"]}, "round": 1 , "speaker": "pm"}');
    expect(turn).toEqual({ round: 1, message: 'first' });
  });

  it('yields nothing for text that is not a turn', () => {
    expect(readPartialTurn('')).toEqual({ round: null, message: '' });
    expect(readPartialTurn('Sure! Here is')).toEqual({ round: null, message: '' });
    expect(readPartialTurn('{"round": 1.5, "message": "x"}')).toEqual({ round: null, message: 'x' });
  });
});
