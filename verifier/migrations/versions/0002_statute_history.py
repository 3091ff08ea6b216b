"""The statute book's history: act versions, article spans over them, 부칙 blocks.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "act_versions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("act_id", sa.Integer(), sa.ForeignKey("acts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("mst", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False, index=True),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("promulgated_on", sa.Date()),
        sa.Column("promulgation_number", sa.Integer()),
        sa.Column("effective_on", sa.Date()),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("change", sa.String(20)),
        sa.Column("origin", sa.String(400), nullable=False),
        sa.UniqueConstraint("act_id", "sequence"),
        sa.UniqueConstraint("act_id", "mst"),
    )
    op.create_index("ix_act_versions_number", "act_versions", ["promulgation_number"])
    op.create_table(
        "article_spans",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("act_id", sa.Integer(), sa.ForeignKey("acts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("branch", sa.Integer(), nullable=False),
        sa.Column("first", sa.Integer(), nullable=False),
        sa.Column("last", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(300)),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column("structure", sa.Text(), nullable=False),
        sa.Column("text", sa.Text()),
    )
    op.create_index("ix_article_spans_article", "article_spans", ["act_id", "number", "branch", "first"])
    op.create_table(
        "supplements",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("version_id", sa.Integer(), sa.ForeignKey("act_versions.id", ondelete="CASCADE"),
                  nullable=False, index=True),
        sa.Column("heading", sa.String(200), nullable=False),
        sa.Column("text", sa.Text()),
    )


def downgrade() -> None:
    for table in ("supplements", "article_spans", "act_versions"):
        op.drop_table(table)
