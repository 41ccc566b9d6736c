# The runs of KORT_RULES §12 before each player's current one, filled from the history, and the
# first match of each current run; the streak rows are written again from the same runs.

import django.db.models.deletion
from django.db import migrations, models


CHUNK = 2000
"""Players whose runs one statement counts: each reads their seats through the index that
starts with the player, so the fill is linear in the seats."""

RUNS = """
WITH variants (every_season, every_mode) AS (VALUES (1, 1), (1, 0), (0, 1), (0, 0)),
own AS (
    SELECT s.player_id, s.match_id, m.completed_at, m.season AS match_season,
           m.mode AS match_mode,
           CASE WHEN m.winner = (CASE WHEN s.seat IN (0, 2) THEN 'A' ELSE 'B' END)
                THEN 1 ELSE 0 END AS won
    FROM matches_seat AS s
    JOIN matches_match AS m ON m.id = s.match_id
    JOIN players_player AS p ON p.id = s.player_id
    WHERE s.player_id > %(after)s AND s.player_id <= %(last)s AND NOT p.is_bot
      AND m.status = 'finalized'
),
ordered AS (
    SELECT player_id, season, mode, match_id, completed_at, won,
           ROW_NUMBER() OVER (PARTITION BY player_id, season, mode
                              ORDER BY completed_at, match_id)
         - ROW_NUMBER() OVER (PARTITION BY player_id, season, mode, won
                              ORDER BY completed_at, match_id) AS island,
           ROW_NUMBER() OVER (PARTITION BY player_id, season, mode
                              ORDER BY completed_at DESC, match_id DESC) AS from_latest
    FROM (
        SELECT o.*,
               CASE WHEN v.every_season = 1 THEN 0 ELSE o.match_season END AS season,
               CASE WHEN v.every_mode = 1 THEN 'all' ELSE o.match_mode END AS mode
        FROM own AS o CROSS JOIN variants AS v
    ) AS counted
),
marked AS (
    SELECT ordered.*,
           ROW_NUMBER() OVER (PARTITION BY player_id, season, mode, won, island
                              ORDER BY completed_at, match_id) AS from_first,
           ROW_NUMBER() OVER (PARTITION BY player_id, season, mode, won, island
                              ORDER BY completed_at DESC, match_id DESC) AS from_last
    FROM ordered
),
runs AS (
    SELECT player_id, season, mode, won, COUNT(*) AS length,
           MIN(from_latest) AS latest,
           MAX(CASE WHEN from_first = 1 THEN completed_at END) AS first_completed_at,
           MAX(CASE WHEN from_first = 1 THEN match_id END) AS first_match,
           MAX(CASE WHEN from_last = 1 THEN completed_at END) AS last_completed_at,
           MAX(CASE WHEN from_last = 1 THEN match_id END) AS last_match
    FROM marked
    GROUP BY player_id, season, mode, won, island
)
"""
"""The runs of the human players with ids in (``after``, ``last``] over their finalized
matches, per season (0: all time) and mode (``all``: both), in completion order then match id
(gaps and islands): ``latest`` is 1 for the current run."""

ENDED = f"""
INSERT INTO stats_endedrun (player_id, season, mode, won, first_completed_at, first_match,
                            last_completed_at, last_match, length)
{RUNS}
SELECT player_id, season, mode, won = 1, first_completed_at, first_match, last_completed_at,
       last_match, length
FROM runs WHERE latest > 1
ORDER BY player_id, season, mode, first_completed_at, first_match
"""

FIGURES = f"""
INSERT INTO stats_streakfigures (player_id, season, mode, win_current, win_best, loss_current,
                                 loss_best, last_completed_at, last_match,
                                 current_first_completed_at, current_first_match)
{RUNS}
SELECT player_id, season, mode,
       MAX(CASE WHEN won = 1 AND latest = 1 THEN length ELSE 0 END),
       MAX(CASE WHEN won = 1 THEN length ELSE 0 END),
       MAX(CASE WHEN won = 0 AND latest = 1 THEN length ELSE 0 END),
       MAX(CASE WHEN won = 0 THEN length ELSE 0 END),
       MAX(CASE WHEN latest = 1 THEN last_completed_at END),
       MAX(CASE WHEN latest = 1 THEN last_match END),
       MAX(CASE WHEN latest = 1 THEN first_completed_at END),
       MAX(CASE WHEN latest = 1 THEN first_match END)
FROM runs WHERE 1 = 1
GROUP BY player_id, season, mode
ORDER BY player_id, season, mode
ON CONFLICT (player_id, season, mode) DO UPDATE SET
    win_current = excluded.win_current, win_best = excluded.win_best,
    loss_current = excluded.loss_current, loss_best = excluded.loss_best,
    last_completed_at = excluded.last_completed_at, last_match = excluded.last_match,
    current_first_completed_at = excluded.current_first_completed_at,
    current_first_match = excluded.current_first_match
"""


STALE = """
UPDATE stats_streakfigures SET win_current = 0, win_best = 0, loss_current = 0, loss_best = 0,
    last_completed_at = NULL, last_match = NULL
WHERE last_match IS NOT NULL AND current_first_match IS NULL
"""


def runs_filled(apps, schema_editor):
    """Each chunk of players by id: their ended runs inserted, their streak rows written; then
    the rows of no match left."""
    with schema_editor.connection.cursor() as cursor:
        after = 0
        while True:
            cursor.execute(
                "SELECT MAX(id) FROM (SELECT id FROM players_player WHERE id > %s "
                "ORDER BY id LIMIT %s) AS chunk",
                [after, CHUNK],
            )
            last = cursor.fetchone()[0]
            if last is None:
                break
            cursor.execute(ENDED, {"after": after, "last": last})
            cursor.execute(FIGURES, {"after": after, "last": last})
            after = last
        # A row naming a latest match that the history no longer gives holds no match.
        cursor.execute(STALE)


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0010_reset_season'),
        ('stats', '0005_pairs_streaks_modes'),
    ]

    operations = [
        migrations.AddField(
            model_name='streakfigures',
            name='current_first_completed_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='streakfigures',
            name='current_first_match',
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.CreateModel(
            name='EndedRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('season', models.PositiveIntegerField(help_text="The season's number; 0: all time.")),
                ('mode', models.CharField(help_text='ranked, room, or all: both.', max_length=6)),
                ('won', models.BooleanField()),
                ('first_completed_at', models.DateTimeField()),
                ('first_match', models.BigIntegerField()),
                ('last_completed_at', models.DateTimeField()),
                ('last_match', models.BigIntegerField()),
                ('length', models.PositiveIntegerField()),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='players.player')),
            ],
            options={
                'indexes': [models.Index(models.F('player'), models.F('season'), models.F('mode'), models.F('won'), models.OrderBy(models.F('length'), descending=True), name='ended_run_length')],
                'constraints': [models.UniqueConstraint(fields=('player', 'season', 'mode', 'first_completed_at', 'first_match'), name='ended_run_order'), models.CheckConstraint(condition=models.Q(('length__gt', 0)), name='ended_run_not_empty'), models.CheckConstraint(condition=models.Q(('mode__in', ('all', 'ranked', 'room'))), name='ended_run_mode_known')],
            },
        ),
        migrations.RunPython(runs_filled, migrations.RunPython.noop, elidable=True),
    ]
