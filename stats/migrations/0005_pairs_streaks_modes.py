# The figures of KORT_RULES §12 (partners, opponents, streaks) and the statistics per mode.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0002_player_table_and_content_type'),
        ('stats', '0004_season_one_stats'),
    ]

    operations = [
        migrations.CreateModel(
            name='ModeStats',
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
                ('season', models.PositiveIntegerField(help_text="The season's number; 0: all time.")),
                ('mode', models.CharField(help_text='ranked or room.', max_length=6)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='mode_stats', to='players.player')),
            ],
            options={
                'verbose_name_plural': 'mode stats',
                'constraints': [models.UniqueConstraint(fields=('player', 'season', 'mode'), name='one_mode_row'), models.CheckConstraint(condition=models.Q(('mode__in', ('ranked', 'room'))), name='mode_stats_mode_known'), models.CheckConstraint(condition=models.Q(('matches_won__lte', models.F('matches_played'))), name='mode_matches_won_within_played'), models.CheckConstraint(condition=models.Q(('rounds_won__lte', models.F('rounds_played'))), name='mode_rounds_won_within_played'), models.CheckConstraint(condition=models.Q(('bavan_made__lte', models.F('bavan_called'))), name='mode_bavan_made_within_called')],
            },
        ),
        migrations.CreateModel(
            name='PairFigures',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('side', models.CharField(choices=[('partner', 'Partner'), ('opponent', 'Opponent')], max_length=8)),
                ('season', models.PositiveIntegerField(help_text="The season's number; 0: all time.")),
                ('mode', models.CharField(help_text='ranked, room, or all: both.', max_length=6)),
                ('matches', models.PositiveIntegerField(default=0)),
                ('won', models.PositiveIntegerField(default=0)),
                ('cups', models.IntegerField(default=0)),
                ('other', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='players.player')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pairs', to='players.player')),
            ],
            options={
                'verbose_name_plural': 'pair figures',
                'indexes': [models.Index(models.F('player'), models.F('side'), models.F('season'), models.F('mode'), models.OrderBy(models.F('matches'), descending=True), models.F('other'), name='pair_table_order')],
                'constraints': [models.UniqueConstraint(fields=('player', 'side', 'season', 'mode', 'other'), name='one_pair_row'), models.CheckConstraint(condition=models.Q(('won__lte', models.F('matches'))), name='pair_won_within_played'), models.CheckConstraint(condition=models.Q(('mode__in', ('all', 'ranked', 'room'))), name='pair_mode_known')],
            },
        ),
        migrations.CreateModel(
            name='StreakFigures',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('season', models.PositiveIntegerField(help_text="The season's number; 0: all time.")),
                ('mode', models.CharField(help_text='ranked, room, or all: both.', max_length=6)),
                ('win_current', models.PositiveIntegerField(default=0)),
                ('win_best', models.PositiveIntegerField(default=0)),
                ('loss_current', models.PositiveIntegerField(default=0)),
                ('loss_best', models.PositiveIntegerField(default=0)),
                ('last_completed_at', models.DateTimeField(blank=True, null=True)),
                ('last_match', models.BigIntegerField(blank=True, null=True)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='streaks', to='players.player')),
            ],
            options={
                'verbose_name_plural': 'streak figures',
                'constraints': [models.UniqueConstraint(fields=('player', 'season', 'mode'), name='one_streak_row'), models.CheckConstraint(condition=models.Q(('win_current__lte', models.F('win_best')), ('loss_current__lte', models.F('loss_best')), models.Q(('win_current', 0), ('loss_current', 0), _connector='OR')), name='streaks_current_within_best'), models.CheckConstraint(condition=models.Q(('mode__in', ('all', 'ranked', 'room'))), name='streak_mode_known')],
            },
        ),
    ]
