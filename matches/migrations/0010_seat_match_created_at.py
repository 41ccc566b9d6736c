# Each seat carries its match's creation time, filled in for the seats already stored, so a
# player's history is read newest first through one index at any depth.

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def copy_creation_times(apps, schema_editor):
    seats = apps.get_model('matches', 'Seat').objects.db_manager(schema_editor.connection.alias)
    matches = apps.get_model('matches', 'Match').objects
    seats.update(
        match_created_at=Subquery(matches.filter(pk=OuterRef('match_id')).values('created_at'))
    )


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0009_sweep_indexes'),
        # The seat table is rebuilt on SQLite: after the players' table has its final name.
        ('players', '0002_player_table_and_content_type'),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='match_created_at',
            field=models.DateTimeField(editable=False, null=True),
        ),
        migrations.RunPython(copy_creation_times, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='seat',
            name='match_created_at',
            field=models.DateTimeField(
                editable=False,
                help_text="The match's creation time, copied when the seat is made: a player's "
                'history is read newest first through the index over (player, this, match).',
            ),
        ),
        migrations.AddIndex(
            model_name='seat',
            index=models.Index(
                fields=['player', '-match_created_at', '-match'], name='seat_history_order'
            ),
        ),
    ]
