"""Load the shipped rule set, cost figures, provider and per-token prices from fixtures/ (skips
what is already there)."""

import json

from django.conf import settings
from django.core.management.base import BaseCommand

from decider.models import Assumption, RuleSet
from decider.roles import roles_sync
from decider.rulesets import (
    assumptions_add_missing,
    assumptions_import,
    providers_add_missing,
    ruleset_import,
    token_prices_add_missing,
)

FIXTURES = settings.BASE_DIR / "fixtures"


class Command(BaseCommand):
    help = "Load the default rule set and cost assumptions unless they are already loaded."

    def handle(self, *args, **options):
        if RuleSet.objects.exists():
            self.stdout.write("Rule set already loaded; left as it is.")
        else:
            document = json.loads((FIXTURES / "ruleset.json").read_text(encoding="utf-8"))
            ruleset = ruleset_import(
                document, version=document.get("version"), operator="manage.py load_defaults"
            )
            self.stdout.write(f"Loaded rule set {ruleset}.")
        document = json.loads((FIXTURES / "assumptions.json").read_text(encoding="utf-8"))
        if not Assumption.objects.exists():
            self.stdout.write(f"Loaded {assumptions_import(document)} cost assumptions.")
        elif added := assumptions_add_missing(document):
            # A figure, market or GPU model new in this release; edited figures stay.
            self.stdout.write(f"Added {added} cost assumptions new in this release.")
        else:
            self.stdout.write("Cost assumptions already loaded; left as they are.")
        document = json.loads((FIXTURES / "providers.json").read_text(encoding="utf-8"))
        providers, prices = providers_add_missing(document)
        if providers or prices:
            self.stdout.write(f"Added {providers} cloud providers and {prices} provider prices.")
        else:
            self.stdout.write("Cloud providers already loaded; left as they are.")
        document = json.loads((FIXTURES / "token_prices.json").read_text(encoding="utf-8"))
        if added := token_prices_add_missing(document):
            self.stdout.write(f"Added {added} per-token prices.")
        else:
            self.stdout.write("Per-token prices already loaded; left as they are.")
        if touched := roles_sync():
            self.stdout.write(f"Admin groups set up: {', '.join(touched)}.")
        else:
            self.stdout.write("Admin groups already set up; left as they are.")
