# Seasons of the ranked ladder (KORT_RULES §10). Season 1 is opened by matches.0009, which
# knows when the earliest stored match was created.

from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name='Season',
            fields=[
                ('number', models.PositiveIntegerField(primary_key=True, serialize=False)),
                ('name', models.CharField(max_length=80)),
                ('starts_at', models.DateTimeField()),
                ('ends_at', models.DateTimeField(help_text='UTC. Matches completed from this moment on belong to the next season.')),
                ('status', models.CharField(choices=[('current', 'Current'), ('finalizing', 'Finalizing'), ('finalized', 'Finalized')], default='current', max_length=10)),
                ('finalized_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'ordering': ['-number'],
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('number__gte', 1)), name='season_number_from_one'),
                    models.CheckConstraint(condition=models.Q(('ends_at__gt', models.F('starts_at'))), name='season_ends_after_start'),
                    models.CheckConstraint(condition=models.Q(models.Q(('finalized_at__isnull', False), ('status', 'finalized')), models.Q(models.Q(('status', 'finalized'), _negated=True), ('finalized_at__isnull', True)), _connector='OR'), name='finalized_at_iff_season_finalized'),
                    models.UniqueConstraint(condition=models.Q(('status', 'finalized'), _negated=True), fields=('status',), name='one_current_and_one_finalizing_season'),
                ],
            },
        ),
    ]
