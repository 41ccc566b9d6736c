# The soft reset that opens a season is written after the opening now (ranking.season_end):
# the step "open" comes before the step "reset". An end stopped half-way by the release
# before resumes in the new order: its standings frozen ("reset", with the players up to its
# cursor reset when it was begun in batches, or "open": every player reset), it opens the
# next season and writes the reset to the players the old run had not reached.

from django.db import migrations


def steps_reordered(apps, schema_editor):
    alias = schema_editor.connection.alias
    ends = apps.get_model("ranking", "SeasonEnd").objects.using(alias)
    players = apps.get_model("players", "Player").objects.using(alias)
    for end in ends.filter(step__in=["reset", "open"]):
        written = players.all() if end.step == "open" else players.none()
        if end.step == "reset" and end.cursor:
            written = players.filter(id__lte=end.cursor)
        written.update(reset_season=end.season_id + 1)
        end.step = "open"
        end.cursor = None
        end.save(using=alias, update_fields=["step", "cursor"])


class Migration(migrations.Migration):

    dependencies = [
        ("players", "0010_reset_season"),
        ("ranking", "0011_ledger_player_key_unchecked"),
        ("seasons", "0002_soft_reset_in_progress"),
    ]

    operations = [migrations.RunPython(steps_reordered, migrations.RunPython.noop)]
