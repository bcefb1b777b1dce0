// Progressive enhancement only: every page works without this file.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const input = document.getElementById(button.dataset.copy);
  navigator.clipboard.writeText(input.value).then(() => {
    const label = button.textContent;
    button.textContent = button.dataset.copied || "✓";
    setTimeout(() => { button.textContent = label; }, 1500);
  });
});
document.addEventListener("click", (event) => {
  if (event.target.closest("[data-print]")) window.print();
});
// After an htmx step swap, move focus to the error summary (a full page gets there by
// its autofocus), or else to the new step's heading, for keyboard and screen-reader users.
document.addEventListener("htmx:afterSwap", () => {
  const wizard = document.getElementById("wizard");
  if (!wizard) return;
  const summary = wizard.querySelector("#error-summary");
  if (summary) { summary.focus(); return; }
  const heading = wizard.querySelector("h1");
  heading.setAttribute("tabindex", "-1");
  heading.focus();
});
// A link in the error summary focuses its field and shows the field's label and message too.
document.addEventListener("click", (event) => {
  const link = event.target.closest(".error-summary a[href^='#']");
  const input = link && document.getElementById(link.hash.slice(1));
  if (!input) return;
  event.preventDefault();
  const details = input.closest("details");
  if (details) details.open = true;
  (input.closest(".field") || input).scrollIntoView({ block: "start" });
  input.focus({ preventScroll: true });
});
// A link to a folded section (the odds' ranges) opens it; the browser then scrolls to it.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href^='#']");
  const target = link && document.getElementById(link.hash.slice(1));
  if (target instanceof HTMLDetailsElement) target.open = true;
});
// The utilization step: the average the steady base and the time at the peak give,
// recomputed as they are typed (the server says the same once the step is saved).
document.addEventListener("input", (event) => {
  const form = event.target.closest("form");
  const note = form && form.querySelector("#derived-utilization");
  if (!note) return;
  const number = (name) => parseFloat(form.elements[name] ? form.elements[name].value : "");
  const peak = number("gpus");
  const base = number("base_gpus");
  const share = number("peak_share_pct");
  const valid = peak > 0 && base >= 0 && base <= peak && share >= 0 && share <= 100;
  note.hidden = !valid;
  if (!valid) return;
  const pct = ((base + (peak - base) * share / 100) / peak) * 100;
  note.textContent = note.dataset.template.replace("__pct__", pct.toFixed(1));
});
// A button that breaks a link asks first; the server asks on a page of its own
// when this script does not run, and acts only on confirm=1.
document.addEventListener("submit", (event) => {
  const button = event.submitter;
  if (!button || !button.dataset.confirm) return;
  if (!window.confirm(button.dataset.confirm)) { event.preventDefault(); return; }
  const confirmed = document.createElement("input");
  Object.assign(confirmed, { type: "hidden", name: "confirm", value: "1" });
  event.target.appendChild(confirmed);
});
// "Preparing the PDF": once the poll says it is ready, start the download.
document.addEventListener("htmx:afterSwap", () => {
  const ready = document.querySelector("[data-pdf-ready]:not([data-started])");
  if (!ready) return;
  ready.dataset.started = "true";
  window.location.assign(ready.href);
});
