"""Write a rule set as a decider-ruleset/1 JSON document: `manage.py ruleset_export 2 -o v2.json`."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from decider.models import RuleSet
from decider.rulesets import ruleset_export


class Command(BaseCommand):
    help = "Export a rule set version as JSON (to standard output, or to a file with -o)."

    def add_arguments(self, parser):
        parser.add_argument("version", type=int, help="the rule set version to export")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **options):
        ruleset = RuleSet.objects.filter(version=options["version"]).first()
        if ruleset is None:
            raise CommandError(f"No rule set with version {options['version']}.")
        text = json.dumps(ruleset_export(ruleset), ensure_ascii=False, indent=2) + "\n"
        if options["output"]:
            try:
                Path(options["output"]).write_text(text, encoding="utf-8")
            except OSError as error:
                raise CommandError(f"{options['output']}: {error.strerror}") from None
            self.stderr.write(f"Wrote v{ruleset.version} to {options['output']}.")
        else:
            self.stdout.write(text, ending="")
