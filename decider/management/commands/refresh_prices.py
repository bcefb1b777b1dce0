"""Read public price sources, keep what they say, propose what changes (issue 53).

    manage.py refresh_prices                                   # every source, over HTTPS
    manage.py refresh_prices --source skypilot --provider aws  # one cloud's SkyPilot file
    manage.py refresh_prices --source gpuhunt --provider lambdalabs \\
        --from-file fixtures/prices/gpuhunt-lambdalabs-2026-11-30.csv --format json

Without `--from-file` each source is read over HTTPS (production; the scheduler runs it daily
when DECIDER_PRICE_REFRESH is set); with it a recorded file in the source's own format is
replayed (tests, air-gapped sites). Nothing reaches a result until a publisher makes the
import's draft current in the admin (decider/price_import.py). Exit 2 for bad arguments, 1
when a source could not be read (nothing changed: the site keeps the last approved prices).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from decider import price_import, price_sources

# The clouds each per-provider source is read for when no --provider is given.
DEFAULT_PROVIDERS = {
    "azure": [""],
    "skypilot": ["aws", "gcp", "lambda", "runpod", "nebius", "hyperstack"],
    "gpuhunt": ["aws", "gcp", "azure", "lambdalabs", "runpod", "nebius"],
    "litellm": [""],
}


class Command(BaseCommand):
    help = "Import GPU prices from public sources into a draft a publisher makes current."

    def add_arguments(self, parser):
        parser.add_argument(
            "--source", action="append", choices=sorted(price_sources.SOURCES), default=None
        )
        parser.add_argument("--provider", default="", help="the cloud, for per-cloud files")
        parser.add_argument("--from-file", default=None, help="a recorded file to replay")
        parser.add_argument("--format", choices=["text", "json"], default="text")

    def handle(
        self,
        *args: Any,
        source: list[str] | None,
        provider: str,
        from_file: str | None,
        **options: Any,
    ) -> None:
        sources = source or list(price_sources.SOURCES)
        if from_file is not None:
            text = self._recorded(from_file, sources, provider)
            runs = [(sources[0], provider, text)]
        else:
            runs = [
                (key, name, None)
                for key in sources
                for name in ([provider] if provider else DEFAULT_PROVIDERS[key])
            ]
        reports, failures = [], []
        for key, name, text in runs:
            try:
                run = price_import.refresh(
                    price_sources.SOURCES[key], provider=name, text=text, path=from_file
                )
            except price_sources.SourceUnreadable as error:
                failures.append(f"{key}{':' + name if name else ''}: {error}")
            else:
                reports.append(run.report)
        self._print(reports, options["format"])
        if failures:
            raise CommandError(
                "Could not read "
                + "; ".join(failures)
                + ". Nothing was changed for it: the site keeps the last approved prices.",
                returncode=2 if from_file is not None else 1,  # a bad file is bad input
            )

    def _recorded(self, path: str, sources: list[str], provider: str) -> str:
        if len(sources) != 1:
            raise CommandError(
                "--from-file replays one source: name it with --source", returncode=2
            )
        if price_sources.SOURCES[sources[0]].per_provider and not provider:
            raise CommandError(
                f"--source {sources[0]} publishes one file per cloud: name it with --provider",
                returncode=2,
            )
        try:
            return Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"--from-file: cannot read {path}: {error}", returncode=2) from error

    def _print(self, reports: list[dict[str, Any]], form: str) -> None:
        if form == "json":
            self.stdout.write(json.dumps(reports[0] if len(reports) == 1 else reports, indent=2))
            return
        for report in reports:
            where = report["source"] + (f" ({report['provider']})" if report["provider"] else "")
            self.stdout.write(
                f"{where}: read {report['read']} rows, accepted {len(report['accepted'])}, "
                f"refused {len(report['refused'])}, ignored {report['ignored']} (not priced here)"
            )
            for entry in report["refused"]:
                row = entry["row"]
                where = f"line {row['line']}" if "line" in row else f"“{row.get('key')}”"
                self.stdout.write(f"  refused {where}: {entry['reason']}")
            for entry in report["skipped"]:
                self.stdout.write(f"  skipped {_what(entry)}: {entry['reason']}")
            for entry in report["unchanged"]:
                self.stdout.write(f"  unchanged {_what(entry)}: {_amount(entry['current'])}")
            for label in ("proposed", "awaiting_approval"):
                for entry in report[label]:
                    move = entry["change_pct"]
                    self.stdout.write(
                        f"  {label.replace('_', ' ')} {_what(entry)}: "
                        f"{_amount(entry['current'])} → {_amount(entry['proposed'])} "
                        + (f"({move:+g} %)" if move is not None else "(new)")
                    )
            for flag in report["flags"]:
                self.stdout.write(
                    f"  flag {_what(flag)}: sources {flag['gap_pct']:g} % apart {flag['prices']}"
                )


def _what(entry: dict[str, Any]) -> str:
    model = entry.get("model") or entry["gpu_model"]
    return f"{entry['provider']} {model} {entry['tier'].replace('_', ' ')}"


def _amount(value: Any) -> str:
    """A price as the report holds it: per GPU-hour, or per million tokens in and out."""
    if value is None:
        return "none"
    if isinstance(value, dict):
        return f"{value['in']:g}/{value['out']:g} per million tokens"
    return f"{value:g}"
