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
// After an htmx step swap, move focus to the first field in error, or else
// to the new step's heading, for keyboard and screen-reader users.
document.addEventListener("htmx:afterSwap", () => {
  const wizard = document.getElementById("wizard");
  if (!wizard) return;
  const invalid = wizard.querySelector(".has-error input");
  if (invalid) { invalid.focus(); return; }
  const heading = wizard.querySelector("h1");
  heading.setAttribute("tabindex", "-1");
  heading.focus();
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
