# Per-season statistics (KORT_RULES §10); stats.0004 fills season 1 from the stored ones.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0002_player_table_and_content_type'),
        ('stats', '0002_playerstats_player_in_players_app'),
    ]

    operations = [
        migrations.CreateModel(
            name='SeasonStats',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('matches_played', models.PositiveIntegerField(default=0)),
                ('matches_won', models.PositiveIntegerField(default=0)),
                ('matches_lost', models.PositiveIntegerField(default=0)),
                ('rounds_played', models.PositiveIntegerField(default=0)),
                ('rounds_won', models.PositiveIntegerField(default=0)),
                ('bavan_called', models.PositiveIntegerField(default=0)),
                ('bavan_made', models.PositiveIntegerField(default=0)),
                ('kort_team', models.PositiveIntegerField(default=0)),
                ('kort_opponents', models.PositiveIntegerField(default=0)),
                ('at_kort_team', models.PositiveIntegerField(default=0)),
                ('at_kort_opponents', models.PositiveIntegerField(default=0)),
                ('bavan_team', models.PositiveIntegerField(default=0)),
                ('bavan_opponents', models.PositiveIntegerField(default=0)),
                ('at_bavan_team', models.PositiveIntegerField(default=0)),
                ('at_bavan_opponents', models.PositiveIntegerField(default=0)),
                ('bavan_failed_team', models.PositiveIntegerField(default=0)),
                ('bavan_failed_opponents', models.PositiveIntegerField(default=0)),
                ('season', models.PositiveIntegerField(help_text="The season's number.")),
                ('ranked_played', models.PositiveIntegerField(default=0)),
                ('ranked_won', models.PositiveIntegerField(default=0)),
                ('cups', models.IntegerField()),
                ('best_cups', models.IntegerField()),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='season_stats', to='players.player')),
            ],
            options={
                'verbose_name_plural': 'season stats',
                'ordering': ['player', '-season'],
                'indexes': [models.Index(condition=models.Q(('ranked_played__gt', 0)), fields=['season', 'player'], name='season_board_members')],
                'constraints': [models.UniqueConstraint(fields=('player', 'season'), name='one_stats_row_per_season'), models.CheckConstraint(condition=models.Q(('best_cups__gte', models.F('cups'))), name='season_best_cups_is_best'), models.CheckConstraint(condition=models.Q(('ranked_won__lte', models.F('ranked_played')), ('ranked_played__lte', models.F('matches_played'))), name='ranked_within_played'), models.CheckConstraint(condition=models.Q(('matches_won__lte', models.F('matches_played'))), name='season_matches_won_within_played'), models.CheckConstraint(condition=models.Q(('rounds_won__lte', models.F('rounds_played'))), name='season_rounds_won_within_played'), models.CheckConstraint(condition=models.Q(('bavan_made__lte', models.F('bavan_called'))), name='season_bavan_made_within_called')],
            },
        ),
    ]
