"""Bigtable GC rules as HBase family settings: the mapping both ways, the refused shapes,
and what a major compaction really keeps.

Compaction checks write versions through Thrift (happybase, explicit millisecond
timestamps), force a major compaction (Thrift majorCompact), then lift the GC rule and read
every version: whatever reappears was not physically collected.
"""

import datetime
import time

import pytest
from google.api_core import exceptions
from google.cloud.bigtable import column_family as cf
from google.cloud.bigtable_admin_v2.types import Table as TablePb

HOUR = datetime.timedelta(hours=1)
DAY_MS = 24 * 3600 * 1000


def union(*rules):
    return cf.GCRuleUnion(list(rules))


def intersection(*rules):
    return cf.GCRuleIntersection(list(rules))


EXACT_RULES = [
    # (rule, HBase max_versions, HBase TTL seconds or None)
    (None, 2**31 - 1, None),
    (cf.MaxVersionsGCRule(3), 3, None),
    (cf.MaxAgeGCRule(HOUR), 2**31 - 1, 3600),
    (union(cf.MaxVersionsGCRule(2), cf.MaxAgeGCRule(HOUR)), 2, 3600),
    (intersection(cf.MaxVersionsGCRule(2), cf.MaxAgeGCRule(HOUR)), 2**31 - 1, 3600),
    (
        union(cf.MaxVersionsGCRule(5), intersection(cf.MaxVersionsGCRule(2), cf.MaxAgeGCRule(HOUR))),
        5,
        3600,
    ),
]


@pytest.mark.parametrize("rule", [r[0] for r in EXACT_RULES], ids=lambda r: repr(r and r.to_pb()))
def test_exact_rules_read_back_as_set(make_table, rule):
    table = make_table({"cf": rule})
    assert table.list_column_families()["cf"].gc_rule == rule
    table.column_family("cf", rule).update()
    assert table.list_column_families()["cf"].gc_rule == rule


@pytest.mark.parametrize("rule,versions,ttl", EXACT_RULES, ids=range(len(EXACT_RULES)))
def test_exact_rules_are_hbase_settings(make_table, hbase, rule, versions, ttl):
    table = make_table({"cf": rule})
    family = hbase.table(table.table_id).families()[b"cf"]
    assert family["max_versions"] == versions
    if ttl is not None:
        assert family["time_to_live"] == ttl


# Rules whose members are not in the order Strata derives from HBase settings (versions
# first, then the age part): only a rule kept as given reads back like this.
AS_GIVEN_RULES = [
    union(intersection(cf.MaxVersionsGCRule(2), cf.MaxAgeGCRule(HOUR)), cf.MaxVersionsGCRule(5)),
    union(cf.MaxAgeGCRule(HOUR), cf.MaxVersionsGCRule(2)),
    intersection(cf.MaxAgeGCRule(HOUR), cf.MaxVersionsGCRule(3)),
    union(cf.MaxVersionsGCRule(4)),
]


def full_view_rule(client, table, family):
    api = client.table_admin_client
    full = api.get_table(request={"name": table.name, "view": TablePb.View.FULL})
    return full.column_families[family].gc_rule


@pytest.mark.parametrize("rule", AS_GIVEN_RULES, ids=range(len(AS_GIVEN_RULES)))
def test_rules_read_back_exactly_as_created(client, make_table, rule):
    table = make_table({"cf": rule})
    assert full_view_rule(client, table, "cf") == rule.to_pb()
    assert table.list_column_families()["cf"].gc_rule == rule
    # Also for a family added later, and after an update to another rule.
    table.column_family("added", rule).create()
    assert full_view_rule(client, table, "added") == rule.to_pb()
    other = union(
        intersection(cf.MaxAgeGCRule(2 * HOUR), cf.MaxVersionsGCRule(1)), cf.MaxVersionsGCRule(3)
    )
    table.column_family("cf", other).update()
    assert full_view_rule(client, table, "cf") == other.to_pb()


REFUSED = [
    (union(cf.MaxVersionsGCRule(1), cf.MaxVersionsGCRule(2)), r"gc_rule\.union\.rules\[1\]"),
    (union(cf.MaxAgeGCRule(HOUR), cf.MaxAgeGCRule(2 * HOUR)), r"gc_rule\.union\.rules\[1\]"),
    (
        union(cf.MaxVersionsGCRule(1), union(cf.MaxVersionsGCRule(2), cf.MaxAgeGCRule(HOUR))),
        r"gc_rule\.union\.rules\[1\]",
    ),
    (
        intersection(cf.MaxVersionsGCRule(1), union(cf.MaxVersionsGCRule(2), cf.MaxAgeGCRule(HOUR))),
        r"gc_rule\.intersection\.rules\[1\]",
    ),
    (cf.MaxAgeGCRule(datetime.timedelta(milliseconds=1500)), r"gc_rule\.max_age"),
    (cf.MaxVersionsGCRule(0), r"gc_rule\.max_num_versions"),
]


@pytest.mark.parametrize("rule,field", REFUSED, ids=range(len(REFUSED)))
def test_inexact_rules_are_refused_naming_the_field(make_table, instance, strata_only, rule, field):
    with pytest.raises(exceptions.InvalidArgument, match=r"column_families\[\"cf\"\]\." + field):
        instance.table("refused_gc").create(column_families={"cf": rule})
    table = make_table({"other": None})
    with pytest.raises(exceptions.InvalidArgument, match=r"modifications\[0\]\.create\." + field):
        table.column_family("cf", rule).create()
    assert sorted(table.list_column_families()) == ["other"]


def test_hbase_tables_read_back_a_faithful_rule(instance, hbase):
    name = "hb_gc_%d" % int(time.time() * 1000)
    hbase.create_table(
        name,
        {
            "dflt": dict(),
            "v3ttl": dict(max_versions=3, time_to_live=60),
            "v5": dict(max_versions=5),
        },
    )
    try:
        families = instance.table(name).list_column_families()
        assert families["dflt"].gc_rule == cf.MaxVersionsGCRule(3)  # happybase's default
        assert families["v3ttl"].gc_rule == union(
            cf.MaxVersionsGCRule(3), cf.MaxAgeGCRule(datetime.timedelta(seconds=60))
        )
        assert families["v5"].gc_rule == cf.MaxVersionsGCRule(5)
    finally:
        hbase.delete_table(name, disable=True)


# --- at compaction --------------------------------------------------------------------------


def put_versions(hb_table, column, timestamps):
    for ts in timestamps:
        hb_table.put(b"r", {column: b"v%d" % ts}, timestamp=ts)


def surviving(hbase, table, hb_table, columns):
    """Major-compacts, lifts the GC rule, and returns every stored timestamp per column."""
    hbase.compact_table(table.table_id, major=True)
    table.column_family("cf", None).update()
    return {
        c: [ts for _, ts in hb_table.cells(b"r", c, versions=100, include_timestamp=True)]
        for c in columns
    }


def test_compaction_keeps_the_newest_versions(make_table, hbase):
    table = make_table({"cf": cf.MaxVersionsGCRule(2)})
    hb = hbase.table(table.table_id)
    put_versions(hb, b"cf:a", [1, 2, 3, 4])
    assert [ts for _, ts in hb.cells(b"r", b"cf:a", versions=10, include_timestamp=True)] == [4, 3]
    assert surviving(hbase, table, hb, [b"cf:a"]) == {b"cf:a": [4, 3]}


def test_compaction_drops_what_outlived_max_age(make_table, hbase):
    now = int(time.time() * 1000)
    table = make_table({"cf": cf.MaxAgeGCRule(HOUR)})
    hb = hbase.table(table.table_id)
    put_versions(hb, b"cf:a", [now - 3 * DAY_MS, now - 2 * DAY_MS, now - 1000, now])
    assert surviving(hbase, table, hb, [b"cf:a"]) == {b"cf:a": [now, now - 1000]}


def test_union_collects_when_either_rule_applies(make_table, hbase):
    now = int(time.time() * 1000)
    table = make_table({"cf": union(cf.MaxVersionsGCRule(2), cf.MaxAgeGCRule(HOUR))})
    hb = hbase.table(table.table_id)
    put_versions(hb, b"cf:recent", [now - 3, now - 2, now - 1, now])
    put_versions(hb, b"cf:old", [now - 2 * DAY_MS, now])
    got = surviving(hbase, table, hb, [b"cf:recent", b"cf:old"])
    assert got == {b"cf:recent": [now, now - 1], b"cf:old": [now]}


def test_intersection_collects_only_when_both_rules_apply(make_table, hbase):
    now = int(time.time() * 1000)
    table = make_table({"cf": intersection(cf.MaxVersionsGCRule(2), cf.MaxAgeGCRule(HOUR))})
    hb = hbase.table(table.table_id)
    # Expired and beyond the newest two: collected. Expired but among the newest two, or
    # beyond two but young: kept.
    old = [now - 10 * DAY_MS, now - 9 * DAY_MS, now - 8 * DAY_MS]
    put_versions(hb, b"cf:mixed", old + [now])
    put_versions(hb, b"cf:recent", [now - 3, now - 2, now - 1, now])
    put_versions(hb, b"cf:two_old", [now - 5 * DAY_MS, now - 4 * DAY_MS])
    got = surviving(hbase, table, hb, [b"cf:mixed", b"cf:recent", b"cf:two_old"])
    assert got == {
        b"cf:mixed": [now, now - 8 * DAY_MS],
        b"cf:recent": [now, now - 1, now - 2, now - 3],
        b"cf:two_old": [now - 4 * DAY_MS, now - 5 * DAY_MS],
    }


def test_no_rule_keeps_every_version_through_compaction(make_table, hbase):
    table = make_table({"cf": None})
    hb = hbase.table(table.table_id)
    put_versions(hb, b"cf:a", [1, 2, 3, 4, 5])
    assert surviving(hbase, table, hb, [b"cf:a"]) == {b"cf:a": [5, 4, 3, 2, 1]}
