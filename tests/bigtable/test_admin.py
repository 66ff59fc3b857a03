"""The Table Admin API through Google's Python client: tables, families, DropRowRange,
consistency tokens, and what HBase clients see of the same tables (via happybase).

Tests taking ``strata_only`` check behaviour Google's Go emulator does not have (it ignores
views and page sizes, answers UNKNOWN for a missing family, accepts malformed ids), which
Cloud Bigtable documents and Strata follows.

Data checks write and read through Thrift (happybase) so that they do not depend on the
Bigtable Data API; ``test_*_through_the_data_api`` variants use the Data API and skip
while it answers UNIMPLEMENTED.
"""

import time

import pytest
from google.api_core import exceptions
from google.cloud.bigtable import column_family as cf
from google.cloud.bigtable_admin_v2.types import Table as TablePb

from conftest import INSTANCE, PROJECT, unique_name


def admin(client):
    return client.table_admin_client


def rows_of(hb_table):
    return [key for key, _ in hb_table.scan()]


def data_api_or_skip(call):
    try:
        return call()
    except exceptions.MethodNotImplemented:
        pytest.skip("the Bigtable Data API is not served by this build yet")


# --- tables -----------------------------------------------------------------------------


def test_create_with_splits_and_families_then_get_list_and_exists(make_table, instance):
    table = make_table({"cf": cf.MaxVersionsGCRule(2), "meta": None}, splits=[b"g", b"p"])
    assert table.exists()
    families = table.list_column_families()
    assert sorted(families) == ["cf", "meta"]
    assert families["cf"].gc_rule == cf.MaxVersionsGCRule(2)
    assert families["meta"].gc_rule is None
    assert table.table_id in [t.table_id for t in instance.list_tables()]


def test_splits_become_regions(make_table, hbase):
    table = make_table({"cf": None}, splits=[b"p", b"g", b"g"])
    regions = hbase.table(table.table_id).regions()
    assert [r["start_key"] for r in regions] == [b"", b"g", b"p"]


def test_create_an_existing_table_is_already_exists(make_table, instance):
    table = make_table()
    with pytest.raises(exceptions.AlreadyExists):
        instance.table(table.table_id).create(column_families={"cf": None})


def test_missing_tables(instance):
    missing = instance.table(unique_name("missing"))
    assert not missing.exists()
    with pytest.raises(exceptions.NotFound):
        missing.list_column_families()
    with pytest.raises(exceptions.NotFound):
        missing.column_family("cf").create()
    with pytest.raises(exceptions.NotFound):
        missing.drop_by_prefix(b"a")


def test_bad_names_and_settings_are_invalid_argument(client, instance, strata_only):
    with pytest.raises(exceptions.InvalidArgument, match="table_id"):
        instance.table("bad name!").create(column_families={"cf": None})
    with pytest.raises(exceptions.InvalidArgument, match="initial_splits"):
        admin(client).create_table(
            request={
                "parent": instance.name,
                "table_id": unique_name(),
                "table": {"column_families": {"cf": {}}},
                "initial_splits": [{"key": b""}],
            }
        )
    with pytest.raises(exceptions.InvalidArgument, match="parent"):
        admin(client).list_tables(request={"parent": "projects/p"})


def test_a_table_without_families_takes_them_later(instance):
    # Bigtable (and cbt createtable) create tables without families and add them later.
    table = instance.table(unique_name())
    table.create()
    try:
        assert table.list_column_families() == {}
        table.column_family("cf", cf.MaxVersionsGCRule(1)).create()
        assert list(table.list_column_families()) == ["cf"]
        table.column_family("cf").delete()
        assert table.list_column_families() == {}
    finally:
        table.delete()


def test_get_table_views(client, make_table, strata_only):
    table = make_table({"cf": cf.MaxVersionsGCRule(1)})
    api = admin(client)
    name_only = api.get_table(request={"name": table.name, "view": TablePb.View.NAME_ONLY})
    assert name_only.name == table.name
    assert len(name_only.column_families) == 0
    schema = api.get_table(request={"name": table.name})
    assert list(schema.column_families) == ["cf"]
    assert schema.granularity == TablePb.TimestampGranularity.MILLIS
    full = api.get_table(request={"name": table.name, "view": TablePb.View.FULL})
    assert list(full.column_families) == ["cf"]
    assert len(full.cluster_states) == 1
    states = table.get_cluster_states()
    assert [s.replication_state for s in states.values()] == [TablePb.ClusterState.ReplicationState.READY]


def test_list_tables_pages_and_views(client, instance, strata_only):
    ns = unique_name("ns")
    other = client.instance(ns)
    names = sorted(unique_name() for _ in range(3))
    for name in names:
        other.table(name).create(column_families={"cf": None})
    try:
        api = admin(client)
        pages = list(api.list_tables(request={"parent": other.name, "page_size": 2}).pages)
        assert [len(p.tables) for p in pages] == [2, 1]
        listed = [t.name.rsplit("/", 1)[1] for p in pages for t in p.tables]
        assert listed == names
        assert all(len(t.column_families) == 0 for p in pages for t in p.tables)
        schema = list(
            api.list_tables(request={"parent": other.name, "view": TablePb.View.SCHEMA_VIEW})
        )
        assert [list(t.column_families) for t in schema] == [["cf"]] * 3
    finally:
        for name in names:
            other.table(name).delete()


def test_a_new_instance_is_a_new_namespace(client, hbase):
    ns = unique_name("ns")
    table = client.instance(ns).table("t")
    table.create(column_families={"cf": cf.MaxVersionsGCRule(3)})
    try:
        assert "%s:t" % ns in [n.decode() for n in hbase.tables()]
        hbase.table("%s:t" % ns).put(b"r", {b"cf:q": b"v"})
        assert hbase.table("%s:t" % ns).row(b"r") == {b"cf:q": b"v"}
        assert [t.table_id for t in client.instance(ns).list_tables()] == ["t"]
    finally:
        table.delete()
    assert not table.exists()


def test_delete_table_removes_it_everywhere(make_table, hbase):
    table = make_table()
    hbase.table(table.table_id).put(b"r", {b"cf:q": b"v"})
    table.delete()
    assert not table.exists()
    assert table.table_id.encode() not in hbase.tables()


# --- column families -----------------------------------------------------------------------


def test_family_create_update_delete(make_table):
    table = make_table({"cf": None})
    table.column_family("new", cf.MaxVersionsGCRule(4)).create()
    assert table.list_column_families()["new"].gc_rule == cf.MaxVersionsGCRule(4)
    table.column_family("new", cf.MaxVersionsGCRule(1)).update()
    assert table.list_column_families()["new"].gc_rule == cf.MaxVersionsGCRule(1)
    table.column_family("new").delete()
    assert sorted(table.list_column_families()) == ["cf"]


def test_family_errors(make_table, strata_only):
    table = make_table({"cf": None})
    with pytest.raises(exceptions.AlreadyExists, match="cf"):
        table.column_family("cf").create()
    with pytest.raises(exceptions.NotFound, match="nope"):
        table.column_family("nope", cf.MaxVersionsGCRule(1)).update()
    with pytest.raises(exceptions.NotFound, match="nope"):
        table.column_family("nope").delete()
    with pytest.raises(exceptions.InvalidArgument, match=r"modifications\[0\].create.gc_rule"):
        table.column_family("x", cf.MaxVersionsGCRule(0)).create()


def test_several_modifications_apply_in_order_or_not_at_all(client, make_table, strata_only):
    table = make_table({"cf": None})
    Mod = client.table_admin_client.modify_column_families
    from google.cloud.bigtable_admin_v2.types import ModifyColumnFamiliesRequest as Req

    result = Mod(
        request={
            "name": table.name,
            "modifications": [
                Req.Modification(id="a", create={"gc_rule": {"max_num_versions": 2}}),
                Req.Modification(id="a", update={"gc_rule": {"max_num_versions": 5}}),
                Req.Modification(id="cf", drop=True),
            ],
        }
    )
    assert sorted(result.column_families) == ["a"]
    assert result.column_families["a"].gc_rule.max_num_versions == 5
    with pytest.raises(exceptions.NotFound, match=r"modifications\[1\]"):
        Mod(
            request={
                "name": table.name,
                "modifications": [
                    Req.Modification(id="b", create={}),
                    Req.Modification(id="zz", drop=True),
                ],
            }
        )
    assert sorted(table.list_column_families()) == ["a"], "nothing was applied"


def test_family_changes_keep_the_tables_data(make_table, hbase):
    table = make_table({"cf": None})
    hb = hbase.table(table.table_id)
    hb.put(b"r1", {b"cf:q": b"v1"})
    table.column_family("extra").create()
    hb.put(b"r1", {b"extra:q": b"v2"})
    table.column_family("cf", cf.MaxVersionsGCRule(3)).update()
    assert hb.row(b"r1") == {b"cf:q": b"v1", b"extra:q": b"v2"}
    table.column_family("extra").delete()
    assert hb.row(b"r1") == {b"cf:q": b"v1"}
    hb.put(b"r2", {b"cf:q": b"v3"})  # the table is enabled again
    assert rows_of(hb) == [b"r1", b"r2"]


def test_hbase_sees_bigtable_families(make_table, hbase):
    import datetime

    rule = cf.GCRuleUnion([cf.MaxVersionsGCRule(3), cf.MaxAgeGCRule(datetime.timedelta(hours=1))])
    table = make_table({"cf": rule, "all": None})
    families = hbase.table(table.table_id).families()
    assert families[b"cf"]["max_versions"] == 3
    assert families[b"cf"]["time_to_live"] == 3600
    assert families[b"all"]["max_versions"] == 2**31 - 1


# --- DropRowRange ---------------------------------------------------------------------------


def test_drop_by_prefix_removes_every_version_and_later_writes_show(make_table, hbase):
    table = make_table({"cf": None}, splits=[b"user5"])
    hb = hbase.table(table.table_id)
    future = int(time.time() * 1000) + 10 * 365 * 24 * 3600 * 1000
    for ts in (1000, 2000, future):
        hb.put(b"user1", {b"cf:a": b"v%d" % ts}, timestamp=ts)
    hb.put(b"user7", {b"cf:a": b"x"})
    hb.put(b"use", {b"cf:a": b"keep"})
    hb.put(b"usf", {b"cf:a": b"keep"})
    table.drop_by_prefix(b"user")
    assert rows_of(hb) == [b"use", b"usf"]
    # A later write is visible whatever its timestamp, even one of the dropped cells'.
    hb.put(b"user1", {b"cf:a": b"again"}, timestamp=1000)
    assert hb.cells(b"user1", b"cf:a", versions=10, include_timestamp=True) == [(b"again", 1000)]


def test_drop_by_prefix_through_the_data_api(make_table):
    table = make_table({"cf": None})

    def write():
        for key in (b"a1", b"a2", b"b1"):
            row = table.direct_row(key)
            row.set_cell("cf", b"q", b"v")
            row.commit()

    data_api_or_skip(write)
    data_api_or_skip(lambda: table.read_row(b"a1"))
    table.drop_by_prefix(b"a")
    assert table.read_row(b"a1") is None
    assert table.read_row(b"b1") is not None
    row = table.direct_row(b"a1")
    row.set_cell("cf", b"q", b"new")
    row.commit()
    assert table.read_row(b"a1").cells["cf"][b"q"][0].value == b"new"


def test_truncate_drops_all_data_and_keeps_splits(make_table, hbase):
    table = make_table({"cf": cf.MaxVersionsGCRule(2)}, splits=[b"m"])
    hb = hbase.table(table.table_id)
    hb.put(b"a", {b"cf:q": b"1"})
    hb.put(b"z", {b"cf:q": b"2"})
    table.truncate()
    assert rows_of(hb) == []
    assert [r["start_key"] for r in hb.regions()] == [b"", b"m"]
    assert table.list_column_families()["cf"].gc_rule == cf.MaxVersionsGCRule(2)
    hb.put(b"a", {b"cf:q": b"3"})
    assert rows_of(hb) == [b"a"]


def test_drop_row_range_needs_a_target(client, make_table, strata_only):
    table = make_table()
    with pytest.raises(exceptions.InvalidArgument, match="row_key_prefix"):
        admin(client).drop_row_range(request={"name": table.name, "row_key_prefix": b""})
    with pytest.raises(exceptions.InvalidArgument, match="target"):
        admin(client).drop_row_range(request={"name": table.name})


# --- consistency ----------------------------------------------------------------------------


def test_consistency_tokens(client, make_table):
    table, other = make_table(), make_table()
    api = admin(client)
    token = api.generate_consistency_token(request={"name": table.name}).consistency_token
    assert token
    assert api.check_consistency(request={"name": table.name, "consistency_token": token}).consistent
    with pytest.raises(exceptions.InvalidArgument):
        api.check_consistency(request={"name": other.name, "consistency_token": token})
    with pytest.raises(exceptions.InvalidArgument):
        api.check_consistency(request={"name": table.name, "consistency_token": "garbage"})
    missing = "projects/%s/instances/%s/tables/%s" % (PROJECT, INSTANCE, unique_name("missing"))
    with pytest.raises(exceptions.NotFound):
        api.generate_consistency_token(request={"name": missing})
    with pytest.raises(exceptions.NotFound):
        api.check_consistency(request={"name": missing, "consistency_token": token})
