"""A question left blank is absent from the answers (issue 48).

The wizard stored an optional choice or yes/no question left blank as "" ("Where the compute
will run", "Count the team you already employ", "Whom would you rent cloud GPUs from?"), which
every reader that re-checks the answers (the what-if first) refused. This takes those keys out
of the saved answers and changes nothing else: not the revision (a scored result stays
current), not `updated_at`, not the result.
"""

from django.db import migrations

# The questions as they stood when this was written (engine/questionnaire.py), frozen so that
# a question added or removed later does not change what this migration did.
QUESTION_KEYS = frozenset(
    {
        "stage", "workload", "direction_settled", "demand_shape", "capacity_lead_time",
        "latency_critical", "multi_region", "custom_topology", "utilization_pct", "gpus",
        "base_gpus", "peak_share_pct", "market", "gpu_model", "horizon_years", "growth_pct",
        "ops_hardware", "ops_filesystem", "ops_drivers", "ops_fte", "count_existing_team",
        "has_datacenter", "residency", "cloud_share_pct", "sensitivity",
        "jurisdiction_concern", "cloud_provider", "dataset_tb", "capex_available",
        "cloud_price_fall_pct", "hardware_price_fall_pct",
    }
)  # fmt: skip


def blanks_removed(answers):
    """The answers without the questions left blank ("" or null), or None when none was."""
    if not isinstance(answers, dict):
        return None
    kept = {
        key: value
        for key, value in answers.items()
        if not (key in QUESTION_KEYS and (value == "" or value is None))
    }
    return kept if len(kept) < len(answers) else None


def remove_blanks(apps, schema_editor):
    Assessment = apps.get_model("decider", "Assessment")
    assessments = Assessment.objects.using(schema_editor.connection.alias)
    for row in assessments.only("pk", "answers").iterator(chunk_size=500):
        mended = blanks_removed(row.answers)
        if mended is not None:
            # update(): neither auto_now's updated_at nor any other column moves.
            assessments.filter(pk=row.pk).update(answers=mended)


class Migration(migrations.Migration):
    dependencies = [("decider", "0018_token_prices")]

    # Going back leaves the answers as they are: absent is what "" meant.
    operations = [migrations.RunPython(remove_blanks, migrations.RunPython.noop)]
