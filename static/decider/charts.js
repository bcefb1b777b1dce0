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
    return Plotly.newPlot(el, figure.data, figure.layout, config).then(() => {
      el.dataset.drawn = "true";
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
