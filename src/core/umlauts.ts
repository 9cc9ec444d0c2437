/**
 * German umlauts and ß spelled out in ASCII (`Räuber` → `Raeuber`, `Straße` → `Strasse`), as the
 * course protocols spell them: Catan's keys and values (catan.md §2.1), and the roster names the
 * ladder sends over the MNM wire.
 */

const UMLAUTS: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue', ß: 'ss' };
const UMLAUT = /[äöüÄÖÜß]/g;

/** `text` with ä ö ü Ä Ö Ü ß spelled out; everything else as it is (pure ASCII is returned at once). */
export function spellUmlauts(text: string): string {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return text.replace(UMLAUT, (c) => UMLAUTS[c]!);
  return text;
}
