import { LineSplitter } from './line-splitter';

const b = (s: string) => Buffer.from(s, 'utf8');

describe('LineSplitter', () => {
  it('splits chunks into lines and keeps partial lines for the next chunk', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(b('one\ntw'))).toEqual(['one']);
    expect(splitter.push(b('o\nthr'))).toEqual(['two']);
    expect(splitter.push(b('ee'))).toEqual([]);
    expect(splitter.end()).toEqual(['three']);
    expect(splitter.end()).toEqual([]);
  });

  it('strips CRLF endings and keeps empty lines', () => {
    expect(new LineSplitter().push(b('a\r\n\r\nb\n'))).toEqual(['a', '', 'b']);
  });

  it('decodes a multi-byte character split across chunks', () => {
    const splitter = new LineSplitter();
    const bytes = b('héllo\n');
    expect(splitter.push(bytes.subarray(0, 2))).toEqual([]);
    expect(splitter.push(bytes.subarray(2))).toEqual(['héllo']);
  });

  it('cuts lines longer than the cap, even before their newline arrives', () => {
    const splitter = new LineSplitter(4);
    expect(splitter.push(b('abcdefghij'))).toEqual(['abcd', 'efgh']);
    expect(splitter.push(b('k\n'))).toEqual(['ijk']);
    expect(splitter.push(b('0123456789\n'))).toEqual(['0123', '4567', '89']);
  });
});
