// Draw every Plotly figure whose JSON sits in a <script type="application/json">.
// A plot with data-width/data-height (the printable report) is drawn at that
// fixed size, as a static picture without the mode bar.
(function () {
  const CONFIG = { displayModeBar: false, responsive: true, displaylogo: false };

  function drawOne(el) {
    const source = document.getElementById(el.dataset.figure);
    if (!source || el.dataset.drawn) return Promise.resolve();
    const figure = JSON.parse(source.textContent);
    let config = CONFIG;
    // The figure's caption already carries the title: do not print it twice.
    const figureEl = el.closest("figure");
    if (figureEl && figureEl.querySelector("figcaption h3")) {
      figure.layout.title = { text: "" };
      figure.layout.margin = Object.assign({}, figure.layout.margin, { t: 20 });
    }
    if (el.dataset.width) {
      figure.layout.autosize = false;
      figure.layout.width = Number(el.dataset.width);
      figure.layout.height = Number(el.dataset.height || 320);
      config = { displayModeBar: false, staticPlot: true };
    }
    return Plotly.newPlot(el, figure.data, figure.layout, config)
      .then(() => fitLegend(el))
      .then(() => {
        el.dataset.drawn = "true";
        if (el.on) el.on("plotly_afterplot", () => fitLegend(el));
      });
  }

  // A legend below the chart wraps onto more rows as the chart narrows (a phone,
  // paper). Pin it to the bottom edge and make room for as many rows as it has,
  // so it never runs into the x-axis title.
  const AXIS_ROOM = 58; // tick labels and the axis title under the plot (px)
  function fitLegend(el) {
    const legend = el._fullLayout && el._fullLayout.legend;
    if (!legend || legend.orientation !== "h" || !legend._height) return Promise.resolve();
    const bottom = Math.ceil(AXIS_ROOM + legend._height);
    const margin = (el.layout.margin && el.layout.margin.b) || 0;
    if (el.layout.legend.yref === "container" && Math.abs(margin - bottom) < 2) {
      return Promise.resolve();
    }
    return Plotly.relayout(el, {
      "legend.yref": "container",
      "legend.y": 0,
      "legend.yanchor": "bottom",
      "margin.b": bottom,
    });
  }

  function drawAll(root) {
    const plots = Array.from(root.querySelectorAll("[data-figure]"));
    return Promise.all(plots.map(drawOne)).then(() => {
      document.body.dataset.chartsReady = "true";
    });
  }

  function resizeAll() {
    document.querySelectorAll(".js-plotly-plot:not([data-width])").forEach((el) => Plotly.Plots.resize(el));
  }

  document.addEventListener("DOMContentLoaded", () => drawAll(document));
  // Plotly does not follow print layout by itself: the print CSS fixes the
  // chart size, and we redraw into it before and after printing.
  window.addEventListener("beforeprint", resizeAll);
  window.addEventListener("afterprint", resizeAll);
  if (window.matchMedia) {
    window.matchMedia("print").addEventListener("change", resizeAll);
  }
  window.deciderCharts = { drawAll, resizeAll };
})();
