// Hand-written SVG charts: a line over dated points (a bar when there is
// only one), labelled for screen readers with a summary and a data table
// fallback.
const NS = "http://www.w3.org/2000/svg";

function s(tag, attrs, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text != null) el.textContent = text;
  return el;
}

// lineChart draws points [{x: label, y: number}] (oldest first). label
// describes the chart for assistive technology.
export function lineChart(points, label, fmt = String) {
  // As wide as the screen allows (600 at most): drawn in a narrower box
  // the SVG is not scaled down, so its 11-unit labels stay about 11 px
  // on a phone instead of 6.
  const W = Math.round(Math.min(600, Math.max(280, (window.innerWidth || 600) - 64))), H = 180, B = 24, T = 10, R = 10;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": label });
  svg.append(s("title", {}, label));
  if (!points.length) {
    svg.append(s("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "No data yet"));
    return svg;
  }
  const ys = points.map((p) => p.y);
  const max = Math.max(...ys, 0), min = Math.min(...ys, 0);
  // The y labels end at the axis: leave them room (about 6.5 units a
  // character at the 11-unit font), or a long one ("9,999.986 EMBER") is
  // cut at the left edge and reads as another number.
  const L = Math.max(56, 10 + 6.5 * Math.max(fmt(max).length, fmt(min).length));
  const span = max - min || 1;
  const x = (i) => L + (points.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (points.length - 1));
  const y = (v) => T + (H - T - B) * (1 - (v - min) / span);
  svg.append(s("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }), s("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }));
  svg.append(s("text", { x: L - 6, y: T + 10, "text-anchor": "end" }, fmt(max)), s("text", { x: L - 6, y: H - B, "text-anchor": "end" }, fmt(min)));
  if (points.length === 1) {
    // One day (a new chain): a line needs two points, so its value stands
    // as a bar over its date, named once.
    svg.append(s("text", { x: x(0), y: H - 6, "text-anchor": "middle" }, points[0].x));
    svg.append(s("rect", { x: x(0) - 24, y: y(points[0].y), width: 48, height: Math.max(H - B - y(points[0].y), 0), class: "area" }));
  } else {
    svg.append(s("text", { x: L, y: H - 6 }, points[0].x), s("text", { x: W - R, y: H - 6, "text-anchor": "end" }, points[points.length - 1].x));
    const d = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.y).toFixed(1)}`).join("");
    svg.append(s("path", { d: d + `L${x(points.length - 1).toFixed(1)},${H - B}L${x(0).toFixed(1)},${H - B}Z`, class: "area" }), s("path", { d, class: "line" }));
  }
  points.forEach((p, i) => {
    const c = s("circle", { cx: x(i), cy: y(p.y), r: 3, class: "bar" });
    c.append(s("title", {}, p.x + ": " + fmt(p.y)));
    svg.append(c);
  });
  return svg;
}
