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
