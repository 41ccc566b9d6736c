# The finalized matches' count is stored (ranking.models.FinalizedCount): its first slot holds
# the matches finalized so far, voided ones included.

from django.db import migrations, models


def slots_filled(apps, schema_editor):
    alias = schema_editor.connection.alias
    matches = apps.get_model("matches", "Match").objects.using(alias)
    finalized = matches.filter(status__in=["finalized", "void"]).count()
    counts = apps.get_model("ranking", "FinalizedCount").objects.using(alias)
    counts.create(slot=0, matches=finalized)


class Migration(migrations.Migration):
    dependencies = [
        ("ranking", "0012_reset_after_the_opening"),
    ]

    operations = [
        migrations.CreateModel(
            name="FinalizedCount",
            fields=[
                ("slot", models.PositiveSmallIntegerField(primary_key=True, serialize=False)),
                ("matches", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(slots_filled, migrations.RunPython.noop),
    ]
