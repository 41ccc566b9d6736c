# Every stored ledger row is a match's cups of season 1 (matches.0010); its running total is
# found by replaying each player's rows in time order (KORT_RULES §7: the cups are the sum of
# the rows).

from django.db import migrations

BATCH = 5000


def running_totals(apps, schema_editor):
    ledger = apps.get_model('ranking', 'CupChange')
    alias = schema_editor.connection.alias
    rows = ledger.objects.using(alias).order_by('player_id', 'created_at', 'id').only('player_id', 'delta')
    player, total, pending = None, 0, []
    for row in rows.iterator(chunk_size=BATCH):
        if row.player_id != player:
            player, total = row.player_id, 0
        total += row.delta
        row.cups_after, row.season, row.kind = total, 1, 'match'
        pending.append(row)
        if len(pending) == BATCH:
            ledger.objects.using(alias).bulk_update(pending, ['cups_after', 'season', 'kind'])
            pending = []
    ledger.objects.using(alias).bulk_update(pending, ['cups_after', 'season', 'kind'])


class Migration(migrations.Migration):

    dependencies = [
        ('ranking', '0006_ledger_kinds_and_seasons'),
    ]

    operations = [
        migrations.RunPython(running_totals, migrations.RunPython.noop),
    ]
