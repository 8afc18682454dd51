/**
 * A grouped bar chart as a standalone SVG string: enough for the README's two charts without a
 * charting dependency. Values are drawn on a linear axis from zero, or a log10 axis for spans of
 * several orders of magnitude (latencies), and each bar carries its value as a label.
 */

export interface BarSeries {
  name: string;
  /** One value per group, in group order; undefined leaves a gap. */
  values: ReadonlyArray<number | undefined>;
}

export interface BarChart {
  title: string;
  subtitle?: string;
  /** Group labels along the x axis. */
  groups: readonly string[];
  series: readonly BarSeries[];
  yLabel: string;
  scale?: "linear" | "log";
  /** Upper bound of a linear axis (default: the largest value, rounded up). */
  yMax?: number;
  /** How bar labels are written. */
  format?: (value: number) => string;
  /** A footnote under the legend (the machine, say). */
  note?: string;
  /** A horizontal reference line, e.g. a target. */
  reference?: { value: number; label: string };
}

const PALETTE = ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b7791f", "#c53030", "#319795", "#718096", "#d53f8c", "#4a5568"];
const WIDTH = 860;
const MARGIN = { top: 64, right: 20, bottom: 124, left: 64 };
/** Rough width of a character of the 12 px labels, for wrapping and the legend's layout. */
const CHAR_WIDTH = 6.6;
const PLOT_HEIGHT = 300;

export function groupedBarChart(chart: BarChart): string {
  const format = chart.format ?? ((value: number) => String(value));
  const values = chart.series.flatMap((series) => series.values.filter((value): value is number => value !== undefined));
  const log = chart.scale === "log";
  const positive = values.filter((value) => value > 0);
  const logMin = Math.floor(Math.log10(Math.min(...positive, 1)));
  const logMax = Math.ceil(Math.log10(Math.max(...positive, 10)));
  const linearMax = chart.yMax ?? niceCeiling(Math.max(...values, chart.reference?.value ?? 0, 1e-9));
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const height = MARGIN.top + PLOT_HEIGHT + MARGIN.bottom;
  const y = (value: number): number => {
    const share = log ? (Math.log10(Math.max(value, 10 ** logMin)) - logMin) / (logMax - logMin) : value / linearMax;
    return MARGIN.top + PLOT_HEIGHT * (1 - Math.min(1, Math.max(0, share)));
  };

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="26" font-size="17" font-weight="600" fill="#1a202c">${escape(chart.title)}</text>`,
  );
  if (chart.subtitle) parts.push(`<text x="${MARGIN.left}" y="46" font-size="12" fill="#4a5568">${escape(chart.subtitle)}</text>`);

  // Axis ticks and grid lines.
  const ticks = log
    ? Array.from({ length: logMax - logMin + 1 }, (_, i) => 10 ** (logMin + i))
    : Array.from({ length: 6 }, (_, i) => (linearMax * i) / 5);
  for (const tick of ticks) {
    const at = y(tick);
    parts.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${at}" y2="${at}" stroke="#e2e8f0"/>`,
      `<text x="${MARGIN.left - 8}" y="${at + 4}" font-size="11" text-anchor="end" fill="#4a5568">${escape(tickLabel(tick))}</text>`,
    );
  }
  parts.push(
    `<text transform="translate(16 ${MARGIN.top + PLOT_HEIGHT / 2}) rotate(-90)" font-size="12" text-anchor="middle" fill="#2d3748">${escape(chart.yLabel)}</text>`,
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${MARGIN.top + PLOT_HEIGHT}" y2="${MARGIN.top + PLOT_HEIGHT}" stroke="#718096"/>`,
  );

  const groupWidth = plotWidth / Math.max(1, chart.groups.length);
  const barWidth = Math.min(48, (groupWidth * 0.8) / Math.max(1, chart.series.length));
  chart.groups.forEach((group, g) => {
    const groupLeft = MARGIN.left + g * groupWidth + (groupWidth - barWidth * chart.series.length) / 2;
    chart.series.forEach((series, s) => {
      const value = series.values[g];
      if (value === undefined) return;
      const x = groupLeft + s * barWidth;
      const top = y(value);
      const color = PALETTE[s % PALETTE.length] ?? "#2b6cb0";
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${(barWidth - 3).toFixed(1)}" height="${(MARGIN.top + PLOT_HEIGHT - top).toFixed(1)}" fill="${color}"><title>${escape(`${series.name}, ${group}: ${format(value)}`)}</title></rect>`,
        `<text x="${(x + (barWidth - 3) / 2).toFixed(1)}" y="${(top - 4).toFixed(1)}" font-size="${barWidth < 30 ? 9 : 10}" text-anchor="middle" fill="#1a202c">${escape(format(value))}</text>`,
      );
    });
    const centre = (MARGIN.left + g * groupWidth + groupWidth / 2).toFixed(1);
    const lines = wrapLabel(group, groupWidth);
    parts.push(
      `<text x="${centre}" y="${MARGIN.top + PLOT_HEIGHT + 18}" font-size="12" text-anchor="middle" fill="#2d3748">${lines
        .map((line, i) => `<tspan x="${centre}" dy="${i === 0 ? 0 : 14}">${escape(line)}</tspan>`)
        .join("")}</text>`,
    );
  });

  if (chart.reference) {
    const at = y(chart.reference.value);
    parts.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${at}" y2="${at}" stroke="#e53e3e" stroke-dasharray="6 4"/>`,
      `<text x="${WIDTH - MARGIN.right - 4}" y="${at - 5}" font-size="11" text-anchor="end" fill="#c53030">${escape(chart.reference.label)}</text>`,
    );
  }

  // Legend, wrapped under the axis.
  let legendX = MARGIN.left;
  let legendY = MARGIN.top + PLOT_HEIGHT + 56;
  chart.series.forEach((series, s) => {
    const width = 22 + series.name.length * CHAR_WIDTH;
    if (legendX + width > WIDTH - MARGIN.right) {
      legendX = MARGIN.left;
      legendY += 20;
    }
    parts.push(
      `<rect x="${legendX}" y="${legendY - 10}" width="12" height="12" fill="${PALETTE[s % PALETTE.length] ?? "#2b6cb0"}"/>`,
      `<text x="${legendX + 17}" y="${legendY}" font-size="12" fill="#2d3748">${escape(series.name)}</text>`,
    );
    legendX += width + 14;
  });
  if (chart.note) parts.push(`<text x="${MARGIN.left}" y="${height - 10}" font-size="11" fill="#718096">${escape(chart.note)}</text>`);
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

/** A group label on one line, or two split at the space nearest the middle when it is wider than its group. */
function wrapLabel(label: string, width: number): string[] {
  if (label.length * CHAR_WIDTH <= width * 0.95 || !label.includes(" ")) return [label];
  const middle = label.length / 2;
  let split = -1;
  for (let i = 0; i < label.length; i += 1) if (label[i] === " " && (split < 0 || Math.abs(i - middle) < Math.abs(split - middle))) split = i;
  return [label.slice(0, split), label.slice(split + 1)];
}

function niceCeiling(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function tickLabel(value: number): string {
  return value === 0 ? "0" : Number(value.toPrecision(3)).toString();
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
