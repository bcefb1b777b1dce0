"""What every benchmark reports: the machine it ran on, and its section of docs/BENCHMARKS.md."""

from __future__ import annotations

import datetime as dt
import os
import platform
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "BENCHMARKS.md"


def cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or "unknown"
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else (platform.processor() or "unknown")


def machine_lines() -> list[str]:
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return [
        f"- Date: {now}",
        f"- Platform: {platform.platform()}",
        f"- CPU: {cpu_model()} ({os.cpu_count()} cores)",
        f"- Python: {platform.python_version()}",
    ]


def section_write(title: str, text: str) -> None:
    """Replace the section headed `title` in docs/BENCHMARKS.md (or append it)."""
    old = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"^{re.escape(title)}\n.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)
    if pattern.search(old):
        new = pattern.sub(lambda _: text + "\n", old, count=1)
    else:
        new = old.rstrip("\n") + "\n\n" + text
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(new.rstrip("\n") + "\n", encoding="utf-8")


def report(title: str, text: str, *, write: bool) -> None:
    """Print a benchmark's section; with `write`, put it into docs/BENCHMARKS.md too."""
    print(text)
    if write:
        section_write(title, text)
        print(f"wrote {DOC.relative_to(ROOT)}")
