"""Each fact of a scored result in one place: the columns, not the snapshot.

The recommendation, the derived answers and the scored revision were kept
both inside `result` and in columns of their own, and a copy made before
this migration kept only the snapshot. Columns a copy lost are filled from
its snapshot, then the snapshot drops its copies.
"""

from django.db import migrations

MOVED = ("derived", "revision")


def columns_only(apps, schema_editor):
    Assessment = apps.get_model("decider", "Assessment")
    for assessment in Assessment.objects.exclude(result=None).iterator(chunk_size=500):
        result = dict(assessment.result)
        scoring = dict(result.get("scoring", {}))
        if assessment.scored_revision is None and "revision" in result:
            assessment.scored_revision = result["revision"]
            assessment.recommendation = scoring.get("recommendation") or ""
            assessment.derived = result.get("derived", {})
        for key in MOVED:
            result.pop(key, None)
        scoring.pop("recommendation", None)
        result["scoring"] = scoring
        Assessment.objects.filter(pk=assessment.pk).update(
            result=result,
            recommendation=assessment.recommendation,
            derived=assessment.derived,
            scored_revision=assessment.scored_revision,
        )


def snapshot_too(apps, schema_editor):
    Assessment = apps.get_model("decider", "Assessment")
    for assessment in Assessment.objects.exclude(result=None).iterator(chunk_size=500):
        result = dict(assessment.result)
        result["scoring"] = {
            **result.get("scoring", {}),
            "recommendation": assessment.recommendation or None,
        }
        result["derived"] = assessment.derived
        result["revision"] = assessment.scored_revision
        Assessment.objects.filter(pk=assessment.pk).update(result=result)


class Migration(migrations.Migration):
    dependencies = [("decider", "0006_scoring_columns")]
    operations = [migrations.RunPython(columns_only, snapshot_too)]
