"""Persistent unique ids: IRIDA Next's shape and time code, given to every project and sample
however it is created, unique under bursts and across processes, and never issued twice."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import insert, select, text

from seqcore.db import get_engine
from seqcore.db.migrations import upgrade
from seqcore.framework.plugins import build_plugin_manager
from seqcore.models import puid as puids
from seqcore.models.puid import IssuedPuid
from seqcore.models.sample import Sample
from seqcore.testing import database as test_databases


def test_the_time_code_is_irida_next_s(db):
    # 2024-06-15 13:45:30.5 UTC: year 24, month 6, day 15, 49,530.5 s after midnight.
    moment = datetime(2024, 6, 15, 13, 45, 30, 500_000, tzinfo=UTC)
    unit = int(49_530.5 * 12_228)
    assert puids.date_part(moment) == "AYGP" and puids.unit_of_day(moment) == unit
    assert puids.decode(puids.encode(unit, 6)) == unit
    puids._last_issued.pop(puids.SAMPLE, None)
    issued = puids.issue_puids(db.connection(), puids.SAMPLE, 1, now=moment)
    assert issued == [f"INXT_SAM_AYGP{puids.encode(unit, 6)}"]
    db.rollback()


def test_is_puid_checks_the_shape_and_the_kind():
    assert puids.is_puid("INXT_SAM_AYGPZZ2345")
    assert puids.is_puid("INXT_PRJ_AYGPZZ2345", puids.PROJECT)
    assert not puids.is_puid("INXT_PRJ_AYGPZZ2345", puids.SAMPLE)
    for text_ in ("INXT_SAM_AYGPZZ234", "INXT_SAM_AYGPZZ2341", "inxt_SAM_AYGPZZ2345",
                  "XNXT_SAM_AYGPZZ2345", "INXT_SAM_AYGPZZ2345 ", 7, None):
        assert not puids.is_puid(text_)


def test_a_burst_in_one_unit_of_time_gets_distinct_ordered_puids(db):
    now = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    burst = puids.issue_puids(db.connection(), puids.SAMPLE, 50, now=now)
    one_more = puids.issue_puids(db.connection(), puids.SAMPLE, 1, now=now)[0]
    codes = [puids.decode(value[-6:]) for value in [*burst, one_more]]
    assert len({*burst, one_more}) == 51
    assert codes == sorted(codes) and codes[-1] - codes[0] == 50
    assert all(puids.is_puid(value, puids.SAMPLE) for value in burst)
    db.rollback()


def test_a_value_another_process_took_is_skipped(db):
    now = datetime(2026, 11, 26, 12, 0, 1, tzinfo=UTC)
    unit = 43_201 * 12_228
    day = puids.date_part(now)
    assert day == "A2L2"
    # Another process already issued the next three units of this instant.
    taken = [puids.format_puid(puids.GROUP, day, unit + i) for i in range(3)]
    db.add_all(IssuedPuid(value=value) for value in taken)
    db.flush()
    puids._last_issued.pop(puids.GROUP, None)
    issued = puids.issue_puids(db.connection(), puids.GROUP, 1, now=now)[0]
    assert issued == puids.format_puid(puids.GROUP, day, unit + 3)
    assert issued in set(db.scalars(select(IssuedPuid.value)))
    db.rollback()


def test_every_creation_path_gives_a_puid_and_a_deleted_one_is_not_reissued(factories, db):
    project = factories.project(owner=factories.user())
    sample = factories.sample(project)  # through the ORM
    db.execute(insert(Sample), [{"name": f"bulk-{i}"} for i in range(3)])  # a Core insert
    values = list(db.scalars(select(Sample.puid).order_by(Sample.id)))
    assert puids.is_puid(project.puid, puids.PROJECT)
    assert values[0] == sample.puid and len(set(values)) == 4
    assert all(puids.is_puid(value, puids.SAMPLE) for value in values)
    register = set(db.scalars(select(IssuedPuid.value)))
    assert {project.puid, *values} <= register
    db.execute(text("DELETE FROM sample"))
    db.execute(insert(Sample), [{"name": "after"}])
    assert db.scalar(select(Sample.puid)) not in register
    db.rollback()


def test_the_migration_gives_existing_rows_puids_in_creation_order(tmp_path):
    url = test_databases.test_database_url(tmp_path, "puid_backfill")
    settings = {"sqlalchemy.url": url}
    pm = build_plugin_manager(settings, plugins=[])
    engine = get_engine(url)
    upgrade(settings, pm, engine=engine, target="c0010")
    created = ["2025-03-01 10:00:00", "2025-03-01 10:00:00", "2024-12-31 23:59:59"]
    with engine.begin() as conn:
        for name, when in zip(("b", "c", "a"), created, strict=True):
            conn.execute(text("INSERT INTO sample (name, created) VALUES (:n, :c)"),
                         {"n": name, "c": when})
    upgrade(settings, pm, engine=engine)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT name, puid FROM sample ORDER BY puid")).all()
        register = set(conn.scalars(text("SELECT value FROM puid")))
    engine.dispose()
    assert [name for name, _ in rows] == ["a", "b", "c"]
    first, second, third = (value for _, value in rows)
    assert first == puids.format_puid(puids.SAMPLE, "AYM7", puids.unit_of_day(
        datetime(2024, 12, 31, 23, 59, 59, tzinfo=UTC)))
    assert second[:13] == third[:13] == "INXT_SAM_AZDB"
    assert puids.decode(third[-6:]) == puids.decode(second[-6:]) + 1
    assert register == {first, second, third}
