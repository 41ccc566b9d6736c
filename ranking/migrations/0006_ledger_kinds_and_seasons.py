# The ledger's rows get a kind (a match's cups, a season's soft reset, a void), the season they
# belong to and the running total (KORT_RULES §10, §11). The columns first, nullable;
# ranking.0006 fills them for the stored rows, ranking.0007 makes them required.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0011_match_season_and_void'),
        ('ranking', '0005_board_counts'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='cupchange',
            name='one_cup_change_per_match_player',
        ),
        migrations.AddField(
            model_name='cupchange',
            name='kind',
            field=models.CharField(choices=[('match', 'Match'), ('season_reset', 'Season Reset'), ('void', 'Void')], default='match', max_length=12),
        ),
        migrations.AddField(
            model_name='cupchange',
            name='season',
            field=models.PositiveIntegerField(help_text="The season's number.", null=True),
        ),
        migrations.AddField(
            model_name='cupchange',
            name='cups_after',
            field=models.IntegerField(help_text="The player's total right after this change.", null=True),
        ),
        migrations.AlterField(
            model_name='cupchange',
            name='match',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='cup_changes', to='matches.match'),
        ),
    ]
