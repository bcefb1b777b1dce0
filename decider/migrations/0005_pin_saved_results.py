"""Results saved before pinning get what pinning needs: the revision, GPU model and figures.

They were always up to date with their answers (an edit used to clear the
result), so they are stamped with the assessment's current revision. Figures
the user had overridden are left out: their shipped value was not kept, and
the current one fills in when the assessment is next scored.
"""

from django.db import migrations

OVERRIDE_SOURCE = "set for this assessment"


def pin(apps, schema_editor):
    Assessment = apps.get_model("decider", "Assessment")
    for assessment in Assessment.objects.exclude(result=None).iterator(chunk_size=500):
        result = assessment.result
        if "revision" in result:
            continue
        result["revision"] = assessment.revision
        result["gpu_model"] = assessment.answers.get("gpu_model")
        result["figures"] = {
            name: figure
            for name, figure in result.get("assumptions", {}).items()
            if figure.get("source") != OVERRIDE_SOURCE
        }
        Assessment.objects.filter(pk=assessment.pk).update(result=result)


class Migration(migrations.Migration):
    dependencies = [("decider", "0004_rule_set_labels")]
    operations = [migrations.RunPython(pin, migrations.RunPython.noop)]
