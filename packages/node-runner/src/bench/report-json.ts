/**
 * The bench report as JSON in the repository's own format. The report lands in docs/ and CI runs
 * `biome check .` over it, so it must come out the way biome would print it: JSON.stringify's
 * two-space layout puts every element of an array on its own line, where biome keeps an array of
 * plain values on one line when it fits the line width (CI once failed on `loadAverage`), and fills
 * the lines of a longer array of numbers as a paragraph.
 */
export function formatReportJson(value: unknown, lineWidth = 160): string {
  const expanded = JSON.stringify(value, null, 2);
  // An array whose elements are all numbers, strings, booleans or null, spread over lines.
  const flatArray = /^( *)((?:"(?:[^"\\]|\\.)*": )?)\[\n((?: *(?:-?[\d.eE+-]+|"(?:[^"\\]|\\.)*"|true|false|null),?\n)+) *\](,?)$/gm;
  const collapsed = expanded.replace(flatArray, (whole, indent: string, key: string, body: string, comma: string) => {
    const items = body
      .split('\n')
      .map((line) => line.trim().replace(/,$/, ''))
      .filter((line) => line !== '');
    const oneLine = `${indent}${key}[${items.join(', ')}]${comma}`;
    if (oneLine.length <= lineWidth) return oneLine;
    if (!items.every((item) => !item.startsWith('"') && !['true', 'false', 'null'].includes(item))) return whole;
    return `${indent}${key}[\n${fillLines(items, `${indent}  `, lineWidth).join('\n')}\n${indent}]${comma}`;
  });
  return `${collapsed}\n`;
}

/** Numbers packed onto as few lines as fit, each line ending in a comma but the last. */
function fillLines(items: string[], indent: string, lineWidth: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const [i, item] of items.entries()) {
    const piece = i < items.length - 1 ? `${item},` : item;
    const candidate = line === '' ? `${indent}${piece}` : `${line} ${piece}`;
    if (line !== '' && candidate.length > lineWidth) {
      lines.push(line);
      line = `${indent}${piece}`;
    } else {
      line = candidate;
    }
  }
  lines.push(line);
  return lines;
}
