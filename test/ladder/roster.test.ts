import { describe, expect, it } from 'vitest';
import {
  isCode,
  isPageToken,
  isReservation,
  MAX_NAME_LENGTH,
  nameKey,
  nameProblem,
  newCode,
  newEntryId,
  newPageToken,
  newReservation,
  parseRosterCsv,
} from '../../src/ladder/roster.js';

describe('roster secrets', () => {
  it('makes codes, reservations, page tokens and entry ids of their shapes', () => {
    for (let i = 0; i < 200; i++) {
      const code = newCode();
      expect(code).toMatch(/^[a-z0-9]{13}$/);
      expect(isCode(code)).toBe(true);
      expect(isReservation(newReservation())).toBe(true);
      const token = newPageToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(isPageToken(token)).toBe(true);
      expect(newEntryId()).toMatch(/^e_[a-z0-9]{10}$/);
    }
  });

  it('uses every code character about equally often (no modulo bias towards a–d)', () => {
    const counts = new Map<string, number>();
    const codes = 20_000;
    for (let i = 0; i < codes; i++) for (const c of newCode()) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(36);
    // 7222 expected each (σ ≈ 84, 1.2 %): 6 % is 5σ, so this fails by chance about once in 50 000
    // runs, while `byte % 36` (256 = 7·36 + 4) would give a–d 8/7 of the others, +12.5 %.
    const expected = (codes * 13) / 36;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.06);
  });

  it('tells the shapes apart', () => {
    expect(isCode('abcdefghij123')).toBe(true);
    expect(isCode('ABCDEFGHIJ123')).toBe(false);
    expect(isCode('abcdefghij12')).toBe(false);
    expect(isCode('abcdefghij1234')).toBe(false);
    expect(isCode('abcdefghij12-')).toBe(false);
    expect(isReservation('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(true);
    expect(isReservation('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe(true);
    expect(isReservation('0f8fad5b-d9cb-169f-a165-70867728950e')).toBe(false); // version 1
    expect(isReservation('0f8fad5b-d9cb-469f-c165-70867728950e')).toBe(false); // not the RFC variant
    expect(isReservation('0f8fad5bd9cb469fa16570867728950e')).toBe(false);
    expect(isPageToken('A'.repeat(31) + '_')).toBe(true);
    expect(isPageToken('A'.repeat(31) + '=')).toBe(false);
    expect(isPageToken('A'.repeat(33))).toBe(false);
  });
});

describe('names', () => {
  it('refuses empty, too long and unprintable names', () => {
    expect(nameProblem('Anna')).toBeNull();
    expect(nameProblem('Jürgen Özdemir-Łukasz 李')).toBeNull();
    expect(nameProblem('')).toMatch(/empty name/);
    expect(nameProblem('', 'group', true)).toBeNull();
    expect(nameProblem('x'.repeat(MAX_NAME_LENGTH))).toBeNull();
    expect(nameProblem('x'.repeat(MAX_NAME_LENGTH + 1))).toMatch(/41 characters/);
    // Characters, not UTF-16 units: 40 astral characters fit.
    expect(nameProblem('😀'.repeat(40))).toBeNull();
    expect(nameProblem('a\nb')).toMatch(/U\+000A/);
    expect(nameProblem('a\tb')).toMatch(/U\+0009/);
    expect(nameProblem('a\u202Eb')).toMatch(/U\+202E/); // a bidi override would reorder a standings line
    expect(nameProblem('a\u2028b')).toMatch(/U\+2028/);
    expect(nameProblem('a\u{E000}b')).toMatch(/U\+E000/);
  });

  it('compares names without case and spacing differences', () => {
    expect(nameKey(' Anna  Schmidt ')).toBe(nameKey('anna schmidt'));
    expect(nameKey('Mu\u0308ller')).toBe(nameKey('Müller'));
  });
});

describe('parseRosterCsv', () => {
  it('reads names and groups with a comma', () => {
    expect(parseRosterCsv('name,group\nAnna,T1\nBernd,T2\n')).toEqual({
      rows: [
        { name: 'Anna', group: 'T1' },
        { name: 'Bernd', group: 'T2' },
      ],
      errors: [],
    });
  });

  it('reads German Excel: BOM, semicolons, CRLF, German headers in any case', () => {
    const text = '\uFEFFName;Gruppe\r\nMüller, Hans;Ü1\r\nSchmidt, Eva;Ü2\r\n';
    expect(parseRosterCsv(text)).toEqual({
      rows: [
        { name: 'Müller, Hans', group: 'Ü1' },
        { name: 'Schmidt, Eva', group: 'Ü2' },
      ],
      errors: [],
    });
    expect(parseRosterCsv('NAME;GRUPPE\nA;1').rows).toEqual([{ name: 'A', group: '1' }]);
  });

  it('reads quoted fields, doubled quotes and separators inside quotes', () => {
    const text = 'name,group\n"Schmidt, Eva","T ""1"""\n"Anna ""Ace"" B",\n';
    expect(parseRosterCsv(text)).toEqual({
      rows: [
        { name: 'Schmidt, Eva', group: 'T "1"' },
        { name: 'Anna "Ace" B', group: '' },
      ],
      errors: [],
    });
  });

  it('needs no group column, ignores other columns and takes the columns in any order', () => {
    expect(parseRosterCsv('name\nAnna\nBernd').rows).toEqual([
      { name: 'Anna', group: '' },
      { name: 'Bernd', group: '' },
    ]);
    expect(parseRosterCsv('Matrikel;Gruppe;E-Mail;Name\n123;T1;a@x.de;Anna\n').rows).toEqual([{ name: 'Anna', group: 'T1' }]);
  });

  it('in a one-column file, takes commas and semicolons as part of the name', () => {
    expect(parseRosterCsv('Name\nMüller, Hans\nA;B\n').rows).toEqual([
      { name: 'Müller, Hans', group: '' },
      { name: 'A;B', group: '' },
    ]);
  });

  it('skips blank lines (and rows of empty cells) but counts them for the line numbers', () => {
    const text = '\nname;group\n\nAnna;T1\n;;\n   \n\n;\nBernd;T2\n\n';
    const parsed = parseRosterCsv(text);
    expect(parsed.rows.map((r) => r.name)).toEqual(['Anna', 'Bernd']);
    expect(parseRosterCsv(text + 'Anna;T3\n').errors).toEqual([{ line: 11, message: 'duplicate name "Anna" (first on line 4)' }]);
  });

  it('trims names and groups and writes them in NFC', () => {
    expect(parseRosterCsv('name,group\n  Mu\u0308ller  , T1 \n').rows).toEqual([{ name: 'Müller', group: 'T1' }]);
  });

  it('reports every error of the file in one pass, with its line', () => {
    const text = [
      'name;group', // 1
      'Anna;T1', // 2
      ';T1', // 3 empty name
      'anna;T2', // 4 duplicate (case)
      `${'x'.repeat(41)};T1`, // 5 too long
      '"Bad', // 6 newline inside quotes (the record spans lines 6-7)
      'Name";T1',
      'Tab\there;T1', // 8 control character
      'Carl;T1;extra', // 9 one field too many
      'Dora;T1;;', // 10 empty extra cells are fine
      'Eve;Grp\u0007', // 11 a group with a control character
    ].join('\n');
    const parsed = parseRosterCsv(text);
    expect(parsed.rows).toEqual([
      { name: 'Anna', group: 'T1' },
      { name: 'Dora', group: 'T1' },
    ]);
    expect(parsed.errors.map((e) => e.line)).toEqual([3, 4, 5, 6, 8, 9, 11]);
    expect(parsed.errors[0]!.message).toMatch(/empty name/);
    expect(parsed.errors[1]!.message).toBe('duplicate name "anna" (first on line 2)');
    expect(parsed.errors[2]!.message).toMatch(/41 characters/);
    expect(parsed.errors[3]!.message).toMatch(/U\+000A/);
    expect(parsed.errors[4]!.message).toMatch(/U\+0009/);
    expect(parsed.errors[5]!.message).toMatch(/3 fields, but the header has 2 columns/);
    expect(parsed.errors[6]!.message).toMatch(/^group .*\(U\+0007\)$/);
  });

  it('counts the lines of a quoted line break (CRLF inside quotes too) for later errors', () => {
    const text = 'name,group\r\n"A\r\nB",T1\r\n,T2\r\n';
    expect(parseRosterCsv(text).errors.map((e) => e.line)).toEqual([2, 4]);
  });

  it('reports bad quoting', () => {
    expect(parseRosterCsv('name,group\n"Anna"x,T1\nBernd,T2').errors).toEqual([
      { line: 2, message: 'text after a closing quote (a quote inside a field is written "")' },
    ]);
    const open = parseRosterCsv('name,group\nAnna,T1\n"Bernd,T2\nCarl,T3\n');
    expect(open.rows).toEqual([{ name: 'Anna', group: 'T1' }]);
    expect(open.errors).toEqual([{ line: 3, message: 'a quoted field opened on line 3 is never closed' }]);
  });

  it('refuses a file without a name column, a repeated column, or no header at all', () => {
    expect(parseRosterCsv('student,group\nAnna,T1\n')).toEqual({ rows: [], errors: [{ line: 1, message: 'the header has no column "name" (or "Name")' }] });
    expect(parseRosterCsv('name,Name\nAnna,Anna\n').errors).toEqual([{ line: 1, message: 'the header has the column name twice' }]);
    expect(parseRosterCsv('').errors).toEqual([{ line: 1, message: 'the file is empty (expected a header line with a column "name")' }]);
    expect(parseRosterCsv('\uFEFF\r\n\r\n').errors).toHaveLength(1);
  });

  it('keeps rows shorter than the header (a missing group is empty)', () => {
    expect(parseRosterCsv('name,group\nAnna\n').rows).toEqual([{ name: 'Anna', group: '' }]);
  });
});
