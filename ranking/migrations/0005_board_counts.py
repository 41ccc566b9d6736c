# The counted leaderboard (KORT_RULES §10; API.md "Leaderboard"): per season and cups value the
# number of players on that season's board, and the season's total beside them, built here from
# the players already on a board.

from django.db import migrations, models
from django.db.models import Count


def count_the_boards(apps, schema_editor):
    alias = schema_editor.connection.alias
    players = apps.get_model('players', 'Player').objects.db_manager(alias)
    counts = apps.get_model('ranking', 'BoardCount').objects.db_manager(alias)
    totals = apps.get_model('ranking', 'BoardTotal').objects.db_manager(alias)
    on_boards = players.filter(is_bot=False, is_banned=False, board_season__isnull=False)
    rows = on_boards.order_by().values_list('board_season', 'cups').annotate(n=Count('id'))
    counts.bulk_create(
        counts.model(season=season, cups=cups, players=n) for season, cups, n in rows
    )
    seasons = on_boards.order_by().values_list('board_season').annotate(n=Count('id'))
    totals.bulk_create(totals.model(season=season, players=n) for season, n in seasons)


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0003_player_board_season'),
        ('ranking', '0004_player_moved_to_players_app'),
    ]

    operations = [
        migrations.CreateModel(
            name='BoardTotal',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('season', models.PositiveIntegerField(unique=True)),
                ('players', models.IntegerField()),
            ],
        ),
        migrations.CreateModel(
            name='BoardCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('season', models.PositiveIntegerField()),
                ('cups', models.IntegerField()),
                ('players', models.IntegerField()),
            ],
            options={
                'ordering': ['season', '-cups'],
                'constraints': [models.UniqueConstraint(fields=('season', 'cups'), name='one_board_count_per_cups')],
            },
        ),
        migrations.RunPython(count_the_boards, migrations.RunPython.noop),
    ]
