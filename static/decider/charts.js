// Draw every Plotly figure whose JSON sits in a <script type="application/json">.
(function () {
  const CONFIG = { displayModeBar: false, responsive: true, displaylogo: false };

  function drawAll(root) {
    root.querySelectorAll("[data-figure]").forEach((el) => {
      const source = document.getElementById(el.dataset.figure);
      if (!source || el.dataset.drawn) return;
      const figure = JSON.parse(source.textContent);
      Plotly.newPlot(el, figure.data, figure.layout, CONFIG).then(() => {
        el.dataset.drawn = "true";
      });
    });
  }

  function resizeAll() {
    document.querySelectorAll(".js-plotly-plot").forEach((el) => Plotly.Plots.resize(el));
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
