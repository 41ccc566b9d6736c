# Players say whose season's board they are on (KORT_RULES §10): every human who has played a
# finalized ranked match so far is on the board of season 1, the season that starts with the
# service. The leaderboard index leads with the season and holds only humans without a ban.

from django.db import migrations, models


def board_of_season_one(apps, schema_editor):
    players = apps.get_model('players', 'Player').objects.db_manager(schema_editor.connection.alias)
    players.filter(is_bot=False, cups_changed_at__isnull=False).update(board_season=1)


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0002_player_table_and_content_type'),
    ]

    operations = [
        migrations.AddField(
            model_name='player',
            name='board_season',
            field=models.PositiveIntegerField(
                blank=True,
                editable=False,
                help_text='The season whose leaderboard the player is on: the season of their '
                'last finalized ranked match (none yet: on no board).',
                null=True,
            ),
        ),
        migrations.RunPython(board_of_season_one, migrations.RunPython.noop),
        migrations.RemoveIndex(model_name='player', name='leaderboard_order'),
        migrations.AddIndex(
            model_name='player',
            index=models.Index(
                condition=models.Q(('is_banned', False), ('is_bot', False)),
                fields=['board_season', '-cups', 'cups_changed_at', 'id'],
                name='leaderboard_order',
            ),
        ),
    ]
