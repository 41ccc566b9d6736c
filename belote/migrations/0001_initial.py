"""The score sheets' models, moved here from the matches app with the tables they had.

State only: the tables ``matches_beloteprotocol`` and ``matches_belotedeal`` were created by
``matches.0003_belote_protocols`` and keep every row; ``matches.0007_belote_to_own_app`` took the
models out of the matches app first. ``0002_rename_tables`` then gives the tables this app's
names.
"""

import django.db.models.deletion
import django.db.models.expressions
import django.db.models.functions.math
import django.db.models.lookups
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('matches', '0007_belote_to_own_app'),
        ('rest_framework_api_key', '0005_auto_20220110_1102'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='BeloteProtocol',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('pair_1', models.CharField(max_length=60)),
                        ('pair_2', models.CharField(max_length=60)),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('service_key', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='belote_protocols', to='rest_framework_api_key.apikey')),
                    ],
                    options={
                        'db_table': 'matches_beloteprotocol',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='BeloteDeal',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('number', models.PositiveSmallIntegerField()),
                        ('playing_pair', models.CharField(choices=[('pair_1', 'Pair 1'), ('pair_2', 'Pair 2')], max_length=6)),
                        ('contract', models.CharField(choices=[('suit', 'suit'), ('all_trumps', 'all_trumps'), ('kapo', 'kapo'), ('kapo_all_trumps', 'kapo_all_trumps'), ('kapo_from_hand', 'kapo_from_hand')], max_length=16)),
                        ('suit', models.CharField(blank=True, choices=[('S', 'S'), ('H', 'H'), ('D', 'D'), ('C', 'C'), ('AT', 'AT')], max_length=2, null=True)),
                        ('contract_number', models.PositiveSmallIntegerField(help_text='N, or K for a Kapo')),
                        ('kontra', models.PositiveSmallIntegerField(default=0)),
                        ('trick_whists_playing', models.PositiveSmallIntegerField()),
                        ('trick_whists_whisting', models.PositiveSmallIntegerField()),
                        ('constructions_playing', models.PositiveSmallIntegerField(default=0)),
                        ('constructions_whisting', models.PositiveSmallIntegerField(default=0)),
                        ('playing_took_tricks', models.BooleanField()),
                        ('whisting_took_tricks', models.BooleanField()),
                        ('played', models.BooleanField()),
                        ('points_playing', models.PositiveIntegerField()),
                        ('points_whisting', models.PositiveIntegerField()),
                        ('bait', models.CharField(blank=True, choices=[('playing', 'playing'), ('whisting', 'whisting')], max_length=8, null=True)),
                        ('breakdown', models.JSONField(help_text='C, PC, Pp, Pv (points) and Vp, Vv (whists)')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('protocol', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='deals', to='belote.beloteprotocol')),
                    ],
                    options={
                        'db_table': 'matches_belotedeal',
                        'ordering': ['protocol', 'number'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='beloteprotocol',
                    constraint=models.CheckConstraint(condition=models.Q(('pair_1', models.F('pair_2')), _negated=True), name='belote_pair_names_differ'),
                ),
                migrations.AddConstraint(
                    model_name='belotedeal',
                    constraint=models.UniqueConstraint(fields=('protocol', 'number'), name='one_belote_deal_per_number'),
                ),
                migrations.AddConstraint(
                    model_name='belotedeal',
                    constraint=models.CheckConstraint(condition=models.Q(('number__gte', 1)), name='belote_deal_number_from_one'),
                ),
                migrations.AddConstraint(
                    model_name='belotedeal',
                    constraint=models.CheckConstraint(condition=models.Q(('playing_pair__in', ['pair_1', 'pair_2'])), name='belote_playing_pair_known'),
                ),
                migrations.AddConstraint(
                    model_name='belotedeal',
                    constraint=models.CheckConstraint(condition=models.Q(('kontra__lte', 2), ('contract_number__gte', 1)), name='belote_kontra_and_number_in_range'),
                ),
                migrations.AddConstraint(
                    model_name='belotedeal',
                    constraint=models.CheckConstraint(condition=django.db.models.lookups.In(django.db.models.expressions.CombinedExpression(models.F('trick_whists_playing'), '+', models.F('trick_whists_whisting')), [162, 258]), name='belote_trick_whists_add_up_to_the_deck'),
                ),
                migrations.AddConstraint(
                    model_name='belotedeal',
                    constraint=models.CheckConstraint(condition=models.Q(django.db.models.lookups.Exact(django.db.models.functions.math.Mod(models.F('constructions_playing'), 10), 0), django.db.models.lookups.Exact(django.db.models.functions.math.Mod(models.F('constructions_whisting'), 10), 0)), name='belote_constructions_in_tens'),
                ),
                migrations.AddConstraint(
                    model_name='belotedeal',
                    constraint=models.CheckConstraint(condition=models.Q(models.Q(('bait', 'playing'), ('bait__isnull', False), ('played', False)), models.Q(('bait__isnull', True), ('kontra', 0), ('played', True)), models.Q(('bait', 'whisting'), ('bait__isnull', False), ('kontra__gte', 1), ('played', True)), _connector='OR'), name='belote_bait_follows_the_result'),
                ),
            ],
        ),
    ]
