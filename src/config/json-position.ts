/**
 * Where a JSON text first goes wrong. V8 names a position for most syntax errors but not for
 * "Unexpected token" (it quotes the surrounding text instead), so this scanner finds the offset
 * itself. It only has to agree with JSON.parse on invalid input: it runs after a parse failed.
 */

/** Offset of the first syntax error in `text`, or text.length when the text just ends early. */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxOffset(i);
  };
  const ws = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const literal = (word: string): void => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const digits = (): void => {
    if (!/[0-9]/.test(text[i] ?? "")) fail();
    while (/[0-9]/.test(text[i] ?? "")) i++;
  };
  const number = (): void => {
    if (text[i] === "-") i++;
    if (text[i] === "0") i++;
    else digits();
    if (text[i] === ".") {
      i++;
      digits();
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      digits();
    }
  };
  const string = (): void => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail();
      const ch = text[i];
      if (ch === '"') return void i++;
      if (ch < " ") fail();
      if (ch === "\\") {
        i++;
        const esc = text[i];
        if (esc === "u") {
          i++;
          for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? "")) fail();
        } else if (esc !== undefined && '"\\/bfnrt'.includes(esc)) i++;
        else fail();
      } else i++;
    }
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === "{") container("}", true);
    else if (ch === "[") container("]", false);
    else if (ch === '"') string();
    else if (ch === "t") literal("true");
    else if (ch === "f") literal("false");
    else if (ch === "n") literal("null");
    else if (ch === "-" || /[0-9]/.test(ch ?? "")) number();
    else fail();
  };
  const container = (close: string, isObject: boolean): void => {
    i++;
    ws();
    if (text[i] === close) return void i++;
    for (;;) {
      if (isObject) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
      }
      value();
      ws();
      if (text[i] === ",") i++;
      else if (text[i] === close) return void i++;
      else fail();
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return text.length;
  } catch (err) {
    if (err instanceof SyntaxOffset) return Math.min(err.offset, text.length);
    throw err;
  }
}

class SyntaxOffset {
  constructor(readonly offset: number) {}
}

/** 1-based line and column of `offset`; a column counts UTF-16 code units, as editors do. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return { line, column };
}
