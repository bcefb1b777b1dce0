// Draw every Plotly figure whose JSON sits in a <script type="application/json">.
// A plot with data-width/data-height (the printable report) is drawn at that
// fixed size, as a static picture without the mode bar.
//
// Without JavaScript the page shows each chart's table open and hides the empty
// plot (a <noscript> style in _chart.html). With it, the table stays hidden until
// the plot is drawn, then folds away; if drawing fails, the table opens instead.
(function () {
  const CONFIG = { displayModeBar: false, responsive: true, displaylogo: false };
  const NARROW = 480; // px: a phone, where labels are shortened and fonts smaller

  // "annotations[1].text" -> layout.annotations[1].text = value
  function setPath(target, path, value) {
    const keys = path.replace(/\[(\d+)\]/g, ".$1").split(".");
    let node = target;
    keys.slice(0, -1).forEach((key) => {
      if (node[key] === undefined) node[key] = {};
      node = node[key];
    });
    node[keys[keys.length - 1]] = value;
  }

  // A long axis title on two lines, broken at the space nearest its middle (or in
  // the middle of a text without spaces, such as Chinese).
  function twoLines(text, longest) {
    // A Chinese character is about two Latin ones wide.
    const width = [...text].reduce((sum, c) => sum + (c.charCodeAt(0) > 0x2e80 ? 2 : 1), 0);
    if (width <= longest || text.includes("<br>")) return text;
    const middle = Math.floor(text.length / 2);
    const spaces = [...text.matchAll(/ /g)].map((m) => m.index);
    if (!spaces.length) return text.slice(0, middle) + "<br>" + text.slice(middle);
    const at = spaces.reduce((a, b) => (Math.abs(b - middle) < Math.abs(a - middle) ? b : a));
    return text.slice(0, at) + "<br>" + text.slice(at + 1);
  }

  function layoutFor(el, figure) {
    const layout = JSON.parse(JSON.stringify(figure.layout));
    const meta = layout.meta || {};
    const narrow = el.clientWidth < NARROW;
    let minHeight = meta.min_height || 0;
    if (narrow) {
      Object.entries(meta.narrow || {}).forEach(([path, value]) => {
        if (path === "min_height") minHeight = value;
        else setPath(layout, path, value);
      });
      layout.font = Object.assign({}, layout.font, { size: 11 });
      layout.margin = Object.assign({}, layout.margin, { l: 10, r: 10 });
      const title = layout.xaxis && layout.xaxis.title;
      if (title && title.text) title.text = twoLines(title.text, 34);
    }
    // The figure's caption already carries the title: do not print it twice.
    const figureEl = el.closest("figure");
    if (figureEl && figureEl.querySelector("figcaption h3")) {
      layout.title = { text: "" };
      layout.margin = Object.assign({}, layout.margin, { t: meta.top || 20 });
    }
    if (el.dataset.width) {
      layout.autosize = false;
      layout.width = Number(el.dataset.width);
      layout.height = Math.max(Number(el.dataset.height || 320), minHeight);
    } else {
      layout.height = Math.max(layout.height || 0, minHeight) || undefined;
    }
    // A chart taller than its box (a tornado with many bars) makes its box grow.
    el.classList.toggle("plot-grow", Boolean(layout.height));
    el.style.height = layout.height ? layout.height + "px" : "";
    el.dataset.narrow = narrow ? "true" : "false";
    return layout;
  }

  function drawOne(el) {
    const source = document.getElementById(el.dataset.figure);
    if (!source || el.dataset.drawn || el.dataset.drawing) return Promise.resolve();
    el.dataset.drawing = "true"; // a fold's "toggle" and drawAll may both ask for it
    const figureEl = el.closest("figure");
    const done = (state) => {
      if (!figureEl) return;
      figureEl.dataset.state = state;
      const table = figureEl.querySelector("details.chart-table");
      if (table) table.open = state !== "drawn";
    };
    let figure, layout;
    try {
      if (typeof Plotly === "undefined") throw new Error("Plotly did not load");
      figure = JSON.parse(source.textContent);
      layout = layoutFor(el, figure);
    } catch (error) {
      console.warn("chart not drawn:", el.dataset.figure, error);
      delete el.dataset.drawing;
      done("failed");
      return Promise.resolve();
    }
    const config = el.dataset.width ? { displayModeBar: false, staticPlot: true } : CONFIG;
    return Plotly.newPlot(el, figure.data, layout, config)
      .finally(() => delete el.dataset.drawing)
      .then(() => fitLegend(el))
      .then(() => {
        if (el.dataset.width) hatchAsLines(el);
        el.dataset.drawn = "true";
        done("drawn");
        if (el.on) el.on("plotly_afterplot", () => fitLegend(el));
      })
      .catch((error) => {
        console.warn("chart not drawn:", el.dataset.figure, error);
        done("failed");
      });
  }

  // A legend below the chart wraps onto more rows as the chart narrows (a phone,
  // paper). Pin it to the bottom edge and make room for as many rows as it has,
  // so it never runs into the x-axis title.
  const AXIS_ROOM = 58; // tick labels and the axis title under the plot (px)
  const MIN_PLOT = 160; // the least height left for the plot itself (px)
  function fitLegend(el) {
    const full = el._fullLayout;
    const legend = full && full.legend;
    if (!legend || legend.orientation !== "h" || !legend._height) return Promise.resolve();
    // Tick labels that wrap (a phone) or lean take more room than one line.
    const xaxis = full.xaxis;
    const tickRoom = xaxis && xaxis._depth ? Math.max(0, xaxis._depth - 22) : 0;
    const bottom = Math.ceil(AXIS_ROOM + tickRoom + legend._height);
    const margin = (el.layout.margin && el.layout.margin.b) || 0;
    if (el.layout.legend.yref === "container" && Math.abs(margin - bottom) < 2) {
      return Promise.resolve();
    }
    const update = {
      "legend.yref": "container",
      "legend.y": 0,
      "legend.yanchor": "bottom",
      "margin.b": bottom,
    };
    // A long legend (many cost lines) must not squeeze the plot away: grow instead.
    const top = (el.layout.margin && el.layout.margin.t) || 0;
    const needed = bottom + top + MIN_PLOT;
    if (full.height < needed) {
      update.height = needed;
      el.style.height = needed + "px";
      el.classList.add("plot-grow");
    }
    return Plotly.relayout(el, update);
  }

  // Chromium prints an SVG pattern fill as a 300 dpi picture of the whole shape
  // (about 77 KB a bar), so a report with hatched bars became a 2 MB PDF. On a
  // static plot (the printable report) each hatched shape gets its pattern's colour
  // as a plain fill and the pattern's strokes on top, repeated and clipped to the
  // shape: the same picture, printed as lines.
  const SVG = "http://www.w3.org/2000/svg";
  let clips = 0;
  function hatchAsLines(el) {
    el.querySelectorAll(".pattern_filled").forEach((shape) => {
      const match = /url\("?#([^")]+)"?\)/.exec(shape.style.fill || "");
      const pattern = match && document.getElementById(match[1]);
      if (!pattern) return;
      const transform = pattern.getAttribute("patternTransform") || "";
      const scale = /^\s*(?:scale\(([\d.]+)\))?\s*$/.exec(transform);
      const width = parseFloat(pattern.getAttribute("width"));
      const height = parseFloat(pattern.getAttribute("height"));
      if (!scale || !(width > 0) || !(height > 0)) return; // drawn as Plotly drew it
      const background = pattern.querySelector("rect");
      const factor = Number(scale[1] || 1);
      const box = shape.getBBox();
      // The shape's own transform (a legend swatch's offset) moves the copy as well.
      const wrap = document.createElementNS(SVG, "g");
      const moved = shape.getAttribute("transform");
      if (moved) wrap.setAttribute("transform", moved);
      const clip = wrap.appendChild(document.createElementNS(SVG, "clipPath"));
      clip.id = "hatch-clip-" + ++clips;
      const outline = clip.appendChild(document.createElementNS(SVG, "path"));
      outline.setAttribute("d", shape.getAttribute("d"));
      const clipped = wrap.appendChild(document.createElementNS(SVG, "g"));
      clipped.setAttribute("clip-path", `url(#${clip.id})`);
      const tiles = clipped.appendChild(document.createElementNS(SVG, "g"));
      tiles.setAttribute("transform", `scale(${factor})`);
      const strokes = [...pattern.children].filter((child) => child !== background);
      const [x0, x1] = [box.x / factor, (box.x + box.width) / factor];
      const [y0, y1] = [box.y / factor, (box.y + box.height) / factor];
      for (let x = Math.floor(x0 / width) * width; x < x1; x += width) {
        for (let y = Math.floor(y0 / height) * height; y < y1; y += height) {
          const tile = tiles.appendChild(document.createElementNS(SVG, "g"));
          tile.setAttribute("transform", `translate(${x},${y})`);
          strokes.forEach((stroke) => tile.appendChild(stroke.cloneNode(true)));
        }
      }
      shape.style.fill = background ? background.getAttribute("fill") : "none";
      shape.style.fillOpacity = background ? background.getAttribute("fill-opacity") || 1 : 1;
      shape.after(wrap);
    });
  }

  // A plot in a closed fold of the result page has no size yet: it is drawn when the fold
  // opens (or the page is printed), not before.
  const FOLDED = "details.fold:not([open]), details.sub-fold:not([open])";
  function drawAll(root) {
    const plots = Array.from(root.querySelectorAll("[data-figure]")).filter(
      (el) => !el.closest(FOLDED)
    );
    return Promise.all(plots.map(drawOne)).then(() => {
      document.body.dataset.chartsReady = "true";
    });
  }

  function resizeAll() {
    document.querySelectorAll(".js-plotly-plot:not([data-width])").forEach((el) => {
      // Crossing the phone width (a turned phone) draws the chart again with the
      // labels for its new width; otherwise resizing is enough.
      if ((el.clientWidth < NARROW ? "true" : "false") !== el.dataset.narrow) {
        Plotly.purge(el);
        delete el.dataset.drawn;
        drawOne(el);
      } else {
        Plotly.Plots.resize(el);
      }
    });
  }

  document.addEventListener("DOMContentLoaded", () => drawAll(document));
  // "toggle" does not bubble: listen in the capture phase for every fold on the page.
  document.addEventListener(
    "toggle",
    (event) => {
      const fold = event.target;
      if (!fold.open || !fold.matches("details.fold, details.sub-fold")) return;
      fold.querySelectorAll("[data-figure]").forEach((el) => {
        if (el.closest(FOLDED)) return;
        if (el.dataset.drawn) Plotly.Plots.resize(el);
        else drawOne(el);
      });
    },
    true
  );
  let resizeTimer;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(resizeAll, 150);
  });
  // Plotly does not follow print layout by itself: the print CSS fixes the
  // chart size, and we redraw into it before and after printing.
  window.addEventListener("beforeprint", () => {
    // app.js opens the folds first (it loads earlier); draw what they held.
    document.querySelectorAll("[data-figure]:not([data-drawn])").forEach(drawOne);
    resizeAll();
  });
  window.addEventListener("afterprint", resizeAll);
  if (window.matchMedia) {
    window.matchMedia("print").addEventListener("change", resizeAll);
  }
  window.deciderCharts = { drawAll, resizeAll };
})();
