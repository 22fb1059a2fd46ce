const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

/** WCAG's relative luminance of an `#rrggbb` colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const c = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG's contrast ratio of two luminances. */
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/** The colour when it is `#rrggbb`, else `fallback`. */
export function colourOr(colour: string | null | undefined, fallback: string): string {
  return colour && HEX_COLOUR.test(colour) ? colour.toLowerCase() : fallback;
}

/** White or black, whichever reads better on the colour (one of them always reaches 4.58:1). */
export function inkOn(background: string): '#ffffff' | '#000000' {
  const l = luminance(background);
  return contrast(l, 1) >= contrast(l, 0) ? '#ffffff' : '#000000';
}

/** The colour for text on white paper when it reads there (4.5:1, WCAG AA), else `fallback`. */
export function readableOnWhite(colour: string, fallback: string): string {
  return contrast(luminance(colour), 1) >= 4.5 ? colour : fallback;
}
