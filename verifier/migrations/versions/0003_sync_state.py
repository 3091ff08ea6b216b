"""Where `citegen-admin sync` stands: a cursor per law.go.kr list, the items of a run under way;
and an index on cases.source_id (판례일련번호), by which a sync knows the decisions it holds.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sync_cursors",
        sa.Column("stream", sa.String(80), primary_key=True),
        sa.Column("synced_through", sa.Date()),
        sa.Column("run_since", sa.Date()),
        sa.Column("run_until", sa.Date()),
        sa.Column("next_page", sa.Integer()),
    )
    op.create_table(
        "sync_items",
        sa.Column("stream", sa.String(80), primary_key=True),
        sa.Column("item", sa.String(40), primary_key=True),
        sa.Column("outcome", sa.String(10), nullable=False),
        sa.Column("reason", sa.String(300)),
    )
    op.create_index("ix_cases_source_id", "cases", ["source_id"])


def downgrade() -> None:
    op.drop_index("ix_cases_source_id", "cases")
    op.drop_table("sync_items")
    op.drop_table("sync_cursors")
