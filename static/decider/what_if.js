// "Try a change": htmx swaps the whole result in place; draw its charts and
// move the focus (and a screen reader) to what changed: the first field in
// error, else the note that says what is being tried.
(function () {
  // The folds the reader had open stay open in the new result (issue 34).
  let opened = [];
  const isResult = (event) => event.detail.target && event.detail.target.id === "result-body";
  document.addEventListener("htmx:beforeSwap", (event) => {
    if (!isResult(event)) return;
    opened = [...document.querySelectorAll("#result-body details.fold[open]")].map((d) => d.id);
  });
  document.addEventListener("htmx:afterSwap", (event) => {
    if (!isResult(event)) return;
    opened.forEach((id) => {
      const fold = document.getElementById(id);
      if (fold) fold.open = true;
    });
  });
  document.addEventListener("htmx:afterSettle", (event) => {
    if (!event.detail.target || event.detail.target.id !== "result-body") return;
    const body = document.getElementById("result-body");
    if (!body) return;
    if (window.deciderCharts) window.deciderCharts.drawAll(body);
    const problem = body.querySelector("#what-if .has-error input");
    const notice = document.getElementById("what-if-notice");
    if (problem) problem.focus();
    else if (notice) notice.focus();
  });
})();
