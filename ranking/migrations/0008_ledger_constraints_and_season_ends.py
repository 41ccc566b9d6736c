# The ledger's new columns are required and its kinds constrained (KORT_RULES §10, §11); the
# frozen final standings of finalized seasons, and the progress of a season's end.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0002_player_table_and_content_type'),
        ('ranking', '0007_ledger_running_totals'),
        ('seasons', '0001_initial'),
    ]

    operations = [
        migrations.AlterField(
            model_name='cupchange',
            name='season',
            field=models.PositiveIntegerField(help_text="The season's number."),
        ),
        migrations.AlterField(
            model_name='cupchange',
            name='cups_after',
            field=models.IntegerField(help_text="The player's total right after this change."),
        ),
        migrations.AddIndex(
            model_name='cupchange',
            index=models.Index(fields=['player', '-created_at', '-id'], name='cup_changes_newest_first'),
        ),
        migrations.AddConstraint(
            model_name='cupchange',
            constraint=models.UniqueConstraint(condition=models.Q(('kind', 'match')), fields=('match', 'player'), name='one_cup_change_per_match_player'),
        ),
        migrations.AddConstraint(
            model_name='cupchange',
            constraint=models.UniqueConstraint(condition=models.Q(('kind', 'void')), fields=('match', 'player'), name='one_void_per_match_player'),
        ),
        migrations.AddConstraint(
            model_name='cupchange',
            constraint=models.UniqueConstraint(condition=models.Q(('kind', 'season_reset')), fields=('season', 'player'), name='one_reset_per_season_player'),
        ),
        migrations.AddConstraint(
            model_name='cupchange',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'season_reset'), ('match__isnull', True)), models.Q(models.Q(('kind', 'season_reset'), _negated=True), ('match__isnull', False)), _connector='OR'), name='a_match_unless_a_reset'),
        ),
        migrations.AddConstraint(
            model_name='cupchange',
            constraint=models.CheckConstraint(condition=models.Q(('season__gte', 1)), name='cup_change_season_from_one'),
        ),
        migrations.CreateModel(
            name='SeasonStanding',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('rank', models.PositiveIntegerField()),
                ('cups', models.IntegerField()),
                ('best_cups', models.IntegerField()),
                ('matches_played', models.PositiveIntegerField()),
                ('matches_won', models.PositiveIntegerField()),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='season_standings', to='players.player')),
                ('season', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='standings', to='seasons.season')),
            ],
            options={
                'ordering': ['season', 'rank'],
                'constraints': [
                    models.UniqueConstraint(fields=('season', 'rank'), name='one_player_per_final_rank'),
                    models.UniqueConstraint(fields=('season', 'player'), name='one_final_rank_per_player'),
                    models.CheckConstraint(condition=models.Q(('rank__gte', 1)), name='final_rank_from_one'),
                    models.CheckConstraint(condition=models.Q(('matches_won__lte', models.F('matches_played')), ('matches_played__gte', 1)), name='standing_matches_within_played'),
                ],
            },
        ),
        migrations.CreateModel(
            name='SeasonEnd',
            fields=[
                ('season', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name='end', serialize=False, to='seasons.season')),
                ('step', models.CharField(choices=[('matches', 'Matches'), ('standings', 'Standings'), ('reset', 'Reset'), ('open', 'Open'), ('done', 'Done')], default='matches', max_length=10)),
                ('reset_floor', models.PositiveIntegerField()),
                ('cursor', models.JSONField(blank=True, null=True)),
                ('standings', models.PositiveIntegerField(default=0)),
                ('batches', models.PositiveIntegerField(default=0)),
                ('runner', models.CharField(blank=True, default='', max_length=40)),
                ('lease_until', models.DateTimeField(blank=True, null=True)),
                ('started_at', models.DateTimeField()),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
            ],
        ),
    ]
