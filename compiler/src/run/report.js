"use strict";
// Draws the charts of a wavec run report from the JSON in <script id="data">.
// Errors are shown on the page (#errors) so a headless browser check sees them;
// the body's data-rendered attribute, set last, says every chart was drawn.
(function () {
  var errors = document.getElementById("errors");
  function fail(msg) {
    errors.hidden = false;
    errors.textContent += "script error: " + msg + "\n";
  }
  window.addEventListener("error", function (e) { fail(e.message); });

  var NS = "http://www.w3.org/2000/svg";
  var COLORS = { issue: "#2e7d32", ready: "#c0ca33", memory: "#1565c0", dependency: "#f9a825", barrier: "#8e24aa", idle: "#bdbdbd" };

  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(e);
    return e;
  }
  function label(parent, x, y, s, anchor, cls) {
    var t = el("text", { x: x, y: y, "text-anchor": anchor || "start", "class": cls || "" }, parent);
    t.textContent = s;
    return t;
  }
  function size(svg, w, h) {
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("width", w);
    svg.setAttribute("height", h);
  }
  function niceMax(v) {
    if (v <= 0) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var m = [1, 2, 5, 10].find(function (k) { return k * p >= v; });
    return m * p;
  }

  // A step chart of (x, y) points with axes, a title and the kernel's point.
  function stepChart(svg, pts, o) {
    var W = 330, H = 210, L = 44, R = 10, T = 24, B = 36;
    size(svg, W, H);
    var xmax = Math.max.apply(null, pts.map(function (p) { return p[0]; }).concat([o.kx, 1]));
    var ymax = Math.max(o.ymax, 1);
    var sx = function (x) { return L + (W - L - R) * x / xmax; };
    var sy = function (y) { return T + (H - T - B) * (1 - y / ymax); };
    el("line", { x1: L, y1: sy(0), x2: W - R, y2: sy(0), "class": "axis" }, svg);
    el("line", { x1: L, y1: T, x2: L, y2: sy(0), "class": "axis" }, svg);
    [0, ymax / 2, ymax].forEach(function (v) { label(svg, L - 4, sy(v) + 4, String(Math.round(v)), "end", "tick"); });
    [[0, "start"], [xmax / 2, "middle"], [xmax, "end"]].forEach(function (p) { label(svg, sx(p[0]), H - B + 14, String(Math.round(p[0])), p[1], "tick"); });
    var d = "";
    pts.forEach(function (p, i) {
      d += (i === 0 ? "M" + sx(p[0]) + "," + sy(p[1]) : "H" + sx(p[0]) + "V" + sy(p[1]));
    });
    el("path", { d: d, "class": "curve" }, svg);
    // A point with its label, the label turned left near the right edge.
    function point(x, y, text, cls) {
      el("circle", { cx: sx(x), cy: sy(y), r: 5, "class": cls }, svg);
      var right = x > 0.7 * xmax;
      label(svg, sx(x) + (right ? -7 : 7), sy(y) - 7, text, right ? "end" : "start", cls + "-label");
    }
    point(o.kx, o.ky, o.ky + " waves", "kernel");
    if (o.wx !== undefined) point(o.wx, o.wy, "as run: " + o.wy, "what-if");
    label(svg, L, 14, o.title, "start", "title");
    label(svg, (L + W - R) / 2, H - 6, o.xlabel, "middle", "axis-label");
  }

  function occupancyCharts(data) {
    var c = data.curves, r = data.report;
    var k = r.occupancy.waves_per_core;
    var reg = { kx: c.kernel_registers, ky: k, ymax: c.max_waves_per_core, title: "registers" + (c.limiter === "registers" ? " (the limit)" : ""), xlabel: "registers per thread" };
    if (c.what_if_registers !== null && r.timing) {
      reg.wx = c.what_if_registers;
      reg.wy = r.timing.waves_per_core;
    }
    stepChart(document.getElementById("occ-registers"), c.registers, reg);
    stepChart(document.getElementById("occ-local"), c.local_memory,
      { kx: c.kernel_local_memory, ky: k, ymax: c.max_waves_per_core, title: "local memory" + (c.limiter === "local memory" ? " (the limit)" : ""), xlabel: "bytes per workgroup" });
    stepChart(document.getElementById("occ-group"), c.group_size,
      { kx: c.kernel_group_size, ky: k, ymax: c.max_waves_per_core, title: "workgroup size" + (c.limiter === "wave slots" || c.limiter === "workgroup size" ? " (" + c.limiter + ")" : ""), xlabel: "threads per workgroup" });
  }

  function coreCycles(t) {
    var svg = document.getElementById("core-cycles");
    var W = 1000, H = 60;
    size(svg, W, H);
    var keys = ["issue", "memory", "dependency", "barrier", "idle"];
    var total = keys.reduce(function (s, k) { return s + t.core_cycles[k]; }, 0) || 1;
    var x = 0;
    keys.forEach(function (k) {
      var w = (W - 2) * t.core_cycles[k] / total;
      var r = el("rect", { x: 1 + x, y: 4, width: Math.max(w, 0), height: 26, fill: COLORS[k] }, svg);
      el("title", {}, r).textContent = k + ": " + t.core_cycles[k] + " core cycles";
      if (w > 60) label(svg, 1 + x + 4, 22, k + " " + (100 * t.core_cycles[k] / total).toFixed(1) + "%", "start", "in-bar");
      x += w;
    });
    label(svg, 0, 50, "core cycles of all " + (t.compute_units * t.cores_per_cu) + " cores over " + t.cycles + " cycles", "start", "tick");
  }

  function occupancyOverTime(t) {
    var svg = document.getElementById("occ-time");
    var W = 1000, H = 180, L = 44, T = 10, B = 30;
    size(svg, W, H);
    var b = t.occupancy_over_time, n = b.length;
    var ymax = niceMax(Math.max(t.waves_per_core, Math.max.apply(null, b.concat([1]))));
    var sx = function (i) { return L + (W - L - 10) * i / n; };
    var sy = function (y) { return T + (H - T - B) * (1 - y / ymax); };
    var d = "M" + sx(0) + "," + sy(0);
    b.forEach(function (v, i) { d += "V" + sy(v) + "H" + sx(i + 1); });
    d += "V" + sy(0) + "Z";
    el("path", { d: d, "class": "area" }, svg);
    el("line", { x1: L, x2: W - 10, y1: sy(t.waves_per_core), y2: sy(t.waves_per_core), "class": "limit" }, svg);
    label(svg, W - 12, sy(t.waves_per_core) - 4, "admission limit " + t.waves_per_core + " waves per core", "end", "tick");
    el("line", { x1: L, y1: sy(0), x2: W - 10, y2: sy(0), "class": "axis" }, svg);
    [0, ymax].forEach(function (v) { label(svg, L - 4, sy(v) + 4, String(v), "end", "tick"); });
    label(svg, L, H - 8, "0", "start", "tick");
    label(svg, W - 10, H - 8, t.cycles + " cycles", "end", "tick");
    label(svg, (W + L) / 2, H - 8, "average " + t.achieved_waves_per_core.toFixed(2) + " resident waves per core", "middle", "axis-label");
  }

  function timeline(t) {
    var svg = document.getElementById("timeline");
    var tl = t.timeline;
    var rows = [];
    tl.segments.forEach(function (s) { if (rows.indexOf(s[2]) < 0) rows.push(s[2]); });
    rows.sort(function (a, b) { return a - b; });
    var RH = 12, L = 50, W = 1000, T = 4, B = 24;
    var H = T + B + RH * Math.max(rows.length, 1);
    size(svg, W, H);
    var end = Math.max(t.cycles, 1);
    var sx = function (c) { return L + (W - L - 10) * c / end; };
    var paths = {};
    tl.segments.forEach(function (s) {
      var y = T + RH * rows.indexOf(s[2]);
      var x = sx(s[0]), w = Math.max(sx(s[1]) - x, 0.3);
      paths[s[3]] = (paths[s[3]] || "") + "M" + x.toFixed(2) + "," + y + "h" + w.toFixed(2) + "v" + (RH - 2) + "h" + (-w).toFixed(2) + "Z";
    });
    Object.keys(paths).forEach(function (k) { el("path", { d: paths[k], fill: COLORS[k], "class": "state-" + k }, svg); });
    rows.forEach(function (r, i) {
      label(svg, L - 4, T + RH * i + RH - 3, Math.floor(r / tl.slots_per_core) + "." + (r % tl.slots_per_core), "end", "row-label");
    });
    label(svg, L, H - 6, "0", "start", "tick");
    label(svg, W - 10, H - 6, t.cycles + " cycles" + (tl.truncated ? " (timeline truncated)" : ""), "end", "tick");
    var legend = document.getElementById("legend");
    ["issue", "ready", "memory", "dependency", "barrier"].forEach(function (k) {
      var s = document.createElement("span");
      s.className = "key";
      s.innerHTML = "<i style=\"background:" + COLORS[k] + "\"></i>" + (k === "ready" ? "ready (core busy)" : k);
      legend.appendChild(s);
    });
  }

  function pressure(r) {
    var svg = document.getElementById("pressure");
    var rows = r.listing, n = Math.max(rows.length, 1);
    var W = 1000, H = 160, L = 44, T = 16, B = 24;
    size(svg, W, H);
    var peak = 0, at = -1;
    rows.forEach(function (x, i) { if (x.live !== null && x.live > peak) { peak = x.live; at = i; } });
    var ymax = Math.max(peak, r.registers, 1);
    var bw = (W - L - 10) / n;
    var sy = function (y) { return T + (H - T - B) * (1 - y / ymax); };
    rows.forEach(function (x, i) {
      if (x.live === null) return;
      var rect = el("rect", { x: L + i * bw, y: sy(x.live), width: Math.max(bw - 0.5, 0.5), height: sy(0) - sy(x.live), "class": i === at ? "peak" : "live" }, svg);
      el("title", {}, rect).textContent = "#" + i + " " + x.text + " (" + x.source + "): " + x.live + " live";
    });
    el("line", { x1: L, x2: W - 10, y1: sy(r.registers), y2: sy(r.registers), "class": "limit" }, svg);
    label(svg, W - 12, sy(r.registers) - 3, ".registers " + r.registers, "end", "tick");
    el("line", { x1: L, y1: sy(0), x2: W - 10, y2: sy(0), "class": "axis" }, svg);
    if (at >= 0) label(svg, L + at * bw, T - 4, "peak " + peak + " at #" + at, at > n / 2 ? "end" : "start", "kernel-label");
    label(svg, L, H - 6, "instruction 0", "start", "tick");
    label(svg, W - 10, H - 6, "instruction " + (n - 1), "end", "tick");
  }

  try {
    var data = JSON.parse(document.getElementById("data").textContent);
    occupancyCharts(data);
    pressure(data.report);
    var t = data.report.timing;
    if (t) {
      coreCycles(t);
      occupancyOverTime(t);
      timeline(t);
    }
    document.body.setAttribute("data-rendered", "1");
  } catch (e) {
    fail(e && e.stack ? e.stack : String(e));
  }
})();
