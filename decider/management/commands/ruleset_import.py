"""Import a rule set document as a new version: `manage.py ruleset_import v2.json [--publish]`."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from decider.engine.ruledocs import RuleSetProblems
from decider.rulesets import documents_read, rulesets_import


class Command(BaseCommand):
    help = (
        "Import a rule set JSON document (or a list of them) as new versions; drafts unless "
        "--publish. A document that breaks any rule is refused whole, one line per problem."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="rule set document (JSON); '-' reads standard input")
        parser.add_argument(
            "--publish", action="store_true", help="publish at once (default: import as a draft)"
        )

    def handle(self, *args, **options):
        try:
            text = (
                sys.stdin.read()
                if options["file"] == "-"
                else Path(options["file"]).read_text(encoding="utf-8")
            )
            # A command runs as the operator, with every right; the history says so.
            rulesets = rulesets_import(
                documents_read(text),
                publish=options["publish"],
                operator="manage.py ruleset_import --publish" if options["publish"] else "",
            )
        except OSError as error:
            self.stderr.write(f"{options['file']}: {error.strerror}")
            raise SystemExit(2) from None
        except UnicodeDecodeError:
            self.stderr.write(f"{options['file']}: the file is not UTF-8 text.")
            raise SystemExit(2) from None
        except RuleSetProblems as error:
            for problem in error.problems:
                self.stderr.write(str(problem))
            raise SystemExit(2) from None
        for ruleset in rulesets:
            state = "published" if ruleset.is_published else "draft"
            self.stdout.write(f"Imported {ruleset} as v{ruleset.version} ({state}).")
