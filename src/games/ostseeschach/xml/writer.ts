/**
 * Our XML writer, byte-compatible with the XStream `PrettyPrintWriter` the official server uses
 * (spec §3.1): two spaces per level, `\n` line ends, `<x/>` for empty elements, text elements on
 * one line, attributes in the order given, and XStream's escaping table.
 */

export interface XmlNode {
  readonly name: string;
  /** In wire order; `null` values are left out, as XStream leaves out null fields. */
  readonly attrs: readonly (readonly [string, string | null])[];
  readonly children: readonly XmlNode[];
  /** A text element (`<team>ONE</team>`); children are then ignored. */
  readonly text: string | null;
}

/**
 * An element; attributes in wire order (object key order), a `null` value leaves the attribute out.
 * Attribute names are never integer-like, so JavaScript keeps their order.
 */
export function el(
  name: string,
  attrs: Readonly<Record<string, string | null>> = {},
  children: readonly XmlNode[] = [],
): XmlNode {
  return { name, attrs: Object.entries(attrs), children, text: null };
}

export function textEl(name: string, text: string): XmlNode {
  return { name, attrs: [], children: [], text };
}

const INDENT = '  ';

/** Java's `Character.isISOControl`: C0 controls and DEL…U+009F. */
const isIsoControl = (c: number): boolean => c <= 0x1f || (c >= 0x7f && c <= 0x9f);
const UNASSIGNED = /\p{Cn}/u;

/**
 * XStream's escaping (PrettyPrintWriter in XML_QUIRKS mode), per UTF-16 unit as Java sees it:
 * `& < > " '` and CR always, NUL as `&#x0;`, TAB and LF raw in text but escaped in attributes, other
 * ISO controls and unassigned characters as `&#x<hex>;`. A lone surrogate becomes `?`, which is what
 * Java's UTF-8 encoder writes for it.
 */
export function escapeXml(text: string, attribute: boolean): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Fast path: printable ASCII that needs no escape.
    if (c >= 0x20 && c < 0x7f && c !== 0x26 && c !== 0x3c && c !== 0x3e && c !== 0x22 && c !== 0x27) continue;
    let rep: string | null;
    switch (c) {
      case 0x00:
        rep = '&#x0;';
        break;
      case 0x26:
        rep = '&amp;';
        break;
      case 0x3c:
        rep = '&lt;';
        break;
      case 0x3e:
        rep = '&gt;';
        break;
      case 0x22:
        rep = '&quot;';
        break;
      case 0x27:
        rep = '&apos;';
        break;
      case 0x0d:
        rep = '&#xd;';
        break;
      case 0x09:
      case 0x0a:
        rep = attribute ? `&#x${c.toString(16)};` : null;
        break;
      default:
        if (c >= 0xd800 && c <= 0xdbff) {
          const next = text.charCodeAt(i + 1);
          if (next >= 0xdc00 && next <= 0xdfff) {
            i++;
            rep = null;
          } else rep = '?';
        } else if (c >= 0xdc00 && c <= 0xdfff) rep = '?';
        else if (isIsoControl(c) || UNASSIGNED.test(String.fromCharCode(c))) rep = `&#x${c.toString(16)};`;
        else rep = null;
    }
    if (rep === null) continue;
    out += text.slice(start, i) + rep;
    start = i + 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

function writeInto(parts: string[], node: XmlNode, depth: number): void {
  parts.push('<', node.name);
  for (const [key, value] of node.attrs) {
    if (value !== null) parts.push(' ', key, '="', escapeXml(value, true), '"');
  }
  if (node.text !== null) {
    parts.push('>', escapeXml(node.text, false), '</', node.name, '>');
    return;
  }
  if (node.children.length === 0) {
    parts.push('/>');
    return;
  }
  parts.push('>');
  const inner = '\n' + INDENT.repeat(depth + 1);
  for (const child of node.children) {
    parts.push(inner);
    writeInto(parts, child, depth + 1);
  }
  parts.push('\n', INDENT.repeat(depth), '</', node.name, '>');
}

/** One element at `depth`, without a leading line break. */
export function writeElement(node: XmlNode, depth = 0): string {
  const parts: string[] = [];
  writeInto(parts, node, depth);
  return parts.join('');
}

/**
 * One packet as the server writes it inside `<protocol>`: a line break, one level of indentation,
 * the element. The stream therefore never ends with a line break (spec §3.1).
 */
export function writePacket(node: XmlNode): string {
  return '\n' + INDENT + writeElement(node, 1);
}

/** A packet the way our client sends it: one line, no indentation (whitespace is free). */
export function writeCompact(node: XmlNode): string {
  let out = '<' + node.name;
  for (const [key, value] of node.attrs) if (value !== null) out += ` ${key}="${escapeXml(value, true)}"`;
  if (node.text !== null) return `${out}>${escapeXml(node.text, false)}</${node.name}>`;
  if (node.children.length === 0) return out + '/>';
  return `${out}>${node.children.map(writeCompact).join('')}</${node.name}>`;
}
