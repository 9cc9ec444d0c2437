// Placeholder until bench/connect4-book.ts has run; do not edit by hand.
export const BOOK_TEXT = `# connect4-book depth=0 entries=0
`;
