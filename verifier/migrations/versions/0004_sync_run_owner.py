"""The sync cursor names the invocation that owns its run under way and the page size it lists with:
a second sync of the same stream takes the run over and the first stops at its next write, and a run
resumed with another `--page-size` starts at the page holding the first row it has not passed.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("sync_cursors") as table:
        table.add_column(sa.Column("run_page_size", sa.Integer()))
        table.add_column(sa.Column("run_owner", sa.String(32)))


def downgrade() -> None:
    with op.batch_alter_table("sync_cursors") as table:
        table.drop_column("run_owner")
        table.drop_column("run_page_size")
