"""The wizard's "Any: the market's typical price" answer is retired (issue 53).

The cloud is now priced at the cheapest listed provider the answers allow, and at the
market's index only where no listed provider rents the GPU model. A saved `cloud_provider`
of "market" asked for the old default, so it is taken out of the answers: absent now means
the new default. Nothing else moves: not the revision (a scored result keeps the prices it
was scored with), not `updated_at`, not the result.
"""

from django.db import migrations


def market_retired(answers):
    """The answers without `cloud_provider: "market"`, or None when they have none."""
    if not isinstance(answers, dict) or answers.get("cloud_provider") != "market":
        return None
    return {key: value for key, value in answers.items() if key != "cloud_provider"}


def retire_market(apps, schema_editor):
    Assessment = apps.get_model("decider", "Assessment")
    assessments = Assessment.objects.using(schema_editor.connection.alias)
    for row in assessments.filter(answers__cloud_provider="market").only("pk", "answers"):
        mended = market_retired(row.answers)
        if mended is not None:
            assessments.filter(pk=row.pk).update(answers=mended)


class Migration(migrations.Migration):
    dependencies = [("decider", "0023_price_imports")]

    operations = [migrations.RunPython(retire_market, migrations.RunPython.noop)]
