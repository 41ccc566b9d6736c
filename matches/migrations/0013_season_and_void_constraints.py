# A match over has its season; a void match has its reason, time and the season of its reversal
# (KORT_RULES §10, §11).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0012_season_one'),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('season__isnull', True), ('status', 'in_progress')), models.Q(models.Q(('status', 'in_progress'), _negated=True), ('season__isnull', False)), _connector='OR'), name='season_iff_match_over'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('status', 'void'), ('void_season__isnull', False), ('voided_at__isnull', False), models.Q(('void_reason', ''), _negated=True)), models.Q(models.Q(('status', 'void'), _negated=True), ('void_reason', ''), ('void_season__isnull', True), ('voided_at__isnull', True)), _connector='OR'), name='void_reason_and_time_iff_void'),
        ),
    ]
