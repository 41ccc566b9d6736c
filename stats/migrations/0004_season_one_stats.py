# Every stored match was completed in season 1 (matches.0010), so each player's season 1
# statistics are their statistics so far, and their season 1 cups and best cups their totals
# (KORT_RULES §10: the season's best counts from 0, the first season's start).

from collections import Counter

from django.db import migrations

COUNTS = [
    'matches_played', 'matches_won', 'matches_lost', 'rounds_played', 'rounds_won',
    'bavan_called', 'bavan_made',
    *(f'{outcome}_{side}' for outcome in ('kort', 'at_kort', 'bavan', 'at_bavan', 'bavan_failed')
      for side in ('team', 'opponents')),
]


def season_one_stats(apps, schema_editor):
    alias = schema_editor.connection.alias
    player_stats = apps.get_model('stats', 'PlayerStats')
    season_stats = apps.get_model('stats', 'SeasonStats')
    seats = apps.get_model('matches', 'Seat').objects.using(alias).filter(
        match__mode='ranked', match__status='finalized', player__is_bot=False
    )
    played, won = Counter(), Counter()
    for player_id, seat, winner in seats.values_list('player_id', 'seat', 'match__winner'):
        played[player_id] += 1
        won[player_id] += winner == ('A' if seat % 2 == 0 else 'B')
    rows = player_stats.objects.using(alias).select_related('player').order_by('player_id')
    season_stats.objects.using(alias).bulk_create(
        season_stats(
            player_id=row.player_id,
            season=1,
            ranked_played=played[row.player_id],
            ranked_won=won[row.player_id],
            cups=row.player.cups,
            best_cups=row.player.best_cups,
            **{name: getattr(row, name) for name in COUNTS},
        )
        for row in rows
    )


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0013_season_and_void_constraints'),
        ('stats', '0003_seasonstats'),
    ]

    operations = [
        migrations.RunPython(season_one_stats, migrations.RunPython.noop),
    ]
