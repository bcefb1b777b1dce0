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
// A link to a folded section, or to anything inside one, opens the folds around it; so
// does arriving with its address (Chromium does that by itself; this is for the others).
function openFoldsAround(target) {
  for (let node = target; node; node = node.parentElement && node.parentElement.closest("details")) {
    if (node instanceof HTMLDetailsElement) node.open = true;
  }
}
function openFoldsFor(hash, scroll) {
  const target = hash.length > 1 && document.getElementById(decodeURIComponent(hash.slice(1)));
  if (!target) return;
  openFoldsAround(target);
  if (scroll) target.scrollIntoView({ block: "start" });
}
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href^='#']");
  if (link) openFoldsFor(link.hash, false); // the browser scrolls to it next
});
window.addEventListener("hashchange", () => openFoldsFor(window.location.hash, true));
document.addEventListener("DOMContentLoaded", () => openFoldsFor(window.location.hash, true));
// Printing the result page prints every section: the folds open first.
window.addEventListener("beforeprint", () => {
  document.querySelectorAll("details.fold, details.sub-fold").forEach((fold) => { fold.open = true; });
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
