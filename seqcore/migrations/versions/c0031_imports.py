"""Imports from another install: ``import_run`` (each run of ``seqcore import``),
``import_map`` (remote object → local row) and ``metadata_entry.import_id`` (the import a
value was copied by: its provenance).

Revision ID: c0031
Revises: c0030
"""

import sqlalchemy as sa
from alembic import op

from seqcore.db.identity import rebuild_kept

revision = "c0031"
down_revision = "c0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "import_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("remote", sa.String(length=1024), nullable=False),
        sa.Column("remote_kind", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.Column("started", sa.DateTime(), nullable=False),
        sa.Column("finished", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], name=op.f("fk_import_run_user_id_user"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_import_run")),
    )
    op.create_table(
        "import_map",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("remote", sa.String(length=1024), nullable=False),
        sa.Column("remote_kind", sa.String(length=32), nullable=False),
        sa.Column("object_type", sa.String(length=64), nullable=False),
        sa.Column("remote_id", sa.String(length=255), nullable=False),
        sa.Column("local_id", sa.Integer(), nullable=False),
        sa.Column("import_id", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["import_id"], ["import_run.id"],
                                name=op.f("fk_import_map_import_id_import_run"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_import_map")),
        sa.UniqueConstraint("remote", "remote_kind", "object_type", "remote_id",
                            name=op.f("uq_import_map_remote")),
    )
    with rebuild_kept(op.get_bind(), "metadata_entry"), \
            op.batch_alter_table("metadata_entry") as batch_op:
        batch_op.add_column(sa.Column("import_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(op.f("fk_metadata_entry_import_id_import_run"),
                                    "import_run", ["import_id"], ["id"], ondelete="SET NULL")


def downgrade() -> None:
    with rebuild_kept(op.get_bind(), "metadata_entry"), \
            op.batch_alter_table("metadata_entry") as batch_op:
        batch_op.drop_constraint(op.f("fk_metadata_entry_import_id_import_run"),
                                 type_="foreignkey")
        batch_op.drop_column("import_id")
    op.drop_table("import_map")
    op.drop_table("import_run")
