# Matches belong to the season in which they were completed (KORT_RULES §10) and may be voided
# (§11): the columns first; matches.0010 fills them for the stored matches, matches.0011 adds
# the constraints.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0010_seat_match_created_at'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='match',
            options={'ordering': ['-created_at', '-id'], 'permissions': [('void_match', 'Can void a finalized match (KORT_RULES §11)')], 'verbose_name_plural': 'matches'},
        ),
        migrations.AddField(
            model_name='match',
            name='season',
            field=models.PositiveIntegerField(blank=True, help_text='The number of the season in which the match was completed (KORT_RULES §10).', null=True),
        ),
        migrations.AddField(
            model_name='match',
            name='void_reason',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.AddField(
            model_name='match',
            name='void_season',
            field=models.PositiveIntegerField(blank=True, help_text="The season in which the void's reversal was written.", null=True),
        ),
        migrations.AddField(
            model_name='match',
            name='voided_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='match',
            name='status',
            field=models.CharField(choices=[('in_progress', 'In Progress'), ('completed', 'Completed'), ('finalized', 'Finalized'), ('void', 'Void')], default='in_progress', max_length=12),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['season', 'status'], name='match_season_status'),
        ),
    ]
