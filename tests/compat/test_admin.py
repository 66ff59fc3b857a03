"""Table administration through happybase: tables, families, enable/disable, delete, regions."""

import re

import pytest
from thriftpy2.thrift import TApplicationException

import Hbase_thrift  # registered by `import happybase`
from conftest import strata_gap, connect, unique_name

DEFAULT_FAMILY = {
    "name": b"cf:",
    "max_versions": 3,
    "compression": b"NONE",
    "in_memory": False,
    "bloom_filter_type": b"NONE",
    "bloom_filter_vector_size": 0,
    "bloom_filter_nb_hashes": 0,
    "block_cache_enabled": False,
    "time_to_live": 2147483647,
}


def test_tables_lists_created_table_and_forgets_deleted_one(conn, make_table):
    name = make_table.name()
    assert name.encode() not in conn.tables()
    make_table({"cf": {}}, name=name)
    tables = conn.tables()
    assert isinstance(tables, list)
    assert name.encode() in tables
    assert all(isinstance(t, bytes) for t in tables)
    conn.delete_table(name, disable=True)
    assert name.encode() not in conn.tables()


def test_tables_does_not_list_system_tables(conn):
    assert not any(t.startswith(b"hbase:") for t in conn.tables())


def test_tables_are_sorted(conn, make_table):
    names = sorted(make_table.name() + suffix for suffix in ("_b", "_a", "_c"))
    for n in names:
        make_table({"cf": {}}, name=n)
    listed = [t for t in conn.tables() if t in {n.encode() for n in names}]
    assert listed == [n.encode() for n in names]


def test_families_with_no_options_report_thrift_defaults(conn, make_table):
    t = make_table({"cf": {}}, conn=conn)
    assert t.families() == {b"cf": DEFAULT_FAMILY}


def test_families_with_options(server, conn, make_table):
    t = make_table(
        {
            "a": dict(max_versions=5),
            "b": dict(
                max_versions=1,
                compression="GZ",
                in_memory=True,
                bloom_filter_type="ROW",
                block_cache_enabled=True,
                time_to_live=3600,
            ),
            "c": dict(bloom_filter_type="ROWCOL", max_versions=10),
        },
        conn=conn,
    )
    fams = t.families()
    assert sorted(fams) == [b"a", b"b", b"c"]
    assert fams[b"a"] == dict(DEFAULT_FAMILY, name=b"a:", max_versions=5)
    assert fams[b"b"] == dict(
        DEFAULT_FAMILY,
        name=b"b:",
        max_versions=1,
        compression=b"GZ",
        in_memory=True,
        bloom_filter_type=b"ROW",
        block_cache_enabled=True,
        time_to_live=3600,
    )
    assert fams[b"c"] == dict(DEFAULT_FAMILY, name=b"c:", bloom_filter_type=b"ROWCOL", max_versions=10)


def test_family_name_with_colon_and_qualifier_is_cut_at_the_colon(conn, make_table):
    t = make_table({"fam:ignored": {}}, conn=conn)
    assert list(t.families()) == [b"fam"]


def test_create_table_with_unknown_compression_is_illegal_argument(conn, make_table):
    name = make_table.name()
    make_table.track(name)
    with pytest.raises(Hbase_thrift.IllegalArgument):
        conn.create_table(name, {"cf": {"compression": "BOGUS"}})
    assert name.encode() not in conn.tables()


def test_create_table_with_unknown_bloom_filter_is_illegal_argument(conn, make_table):
    name = make_table.name()
    make_table.track(name)
    with pytest.raises(Hbase_thrift.IllegalArgument):
        conn.create_table(name, {"cf": {"bloom_filter_type": "BOGUS"}})
    assert name.encode() not in conn.tables()


def test_create_existing_table_raises_already_exists(conn, make_table):
    name = make_table.name()
    make_table({"cf": {}}, name=name)
    with pytest.raises(Hbase_thrift.AlreadyExists):
        conn.create_table(name, {"other": {}})
    # The original table is unchanged.
    assert list(conn.table(name).families()) == [b"cf"]


def test_create_table_with_invalid_name_is_an_internal_error(conn, make_table):
    for bad in ("bad name", "semi;colon"):
        make_table.track(bad)
        with pytest.raises(TApplicationException) as exc:
            conn.create_table(bad, {"cf": {}})
        assert exc.value.type == TApplicationException.INTERNAL_ERROR
    assert conn.tables() is not None  # the connection is still usable


def test_create_table_in_missing_namespace_is_io_error(conn, make_table):
    name = "nonexistent_ns_%s:t" % unique_name("ns")
    make_table.track(name)
    with pytest.raises(Hbase_thrift.IOError):
        conn.create_table(name, {"cf": {}})


def test_enable_disable_is_table_enabled(conn, make_table):
    name = make_table.name()
    make_table({"cf": {}}, name=name)
    assert conn.is_table_enabled(name) is True
    conn.disable_table(name)
    assert conn.is_table_enabled(name) is False
    # A disabled table is still listed.
    assert name.encode() in conn.tables()
    conn.enable_table(name)
    assert conn.is_table_enabled(name) is True


def test_disable_disabled_table_and_enable_enabled_table_are_io_errors(conn, make_table):
    name = make_table.name()
    make_table({"cf": {}}, name=name)
    with pytest.raises(Hbase_thrift.IOError):
        conn.enable_table(name)
    conn.disable_table(name)
    with pytest.raises(Hbase_thrift.IOError):
        conn.disable_table(name)
    assert conn.is_table_enabled(name) is False


def test_reading_a_disabled_table_is_io_error(conn, make_table):
    name = make_table.name()
    t = make_table({"cf": {}}, name=name, conn=conn)
    t.put(b"r", {b"cf:a": b"1"})
    conn.disable_table(name)
    with pytest.raises(Hbase_thrift.IOError):
        t.row(b"r")
    conn.enable_table(name)
    assert t.row(b"r") == {b"cf:a": b"1"}


def test_delete_enabled_table_without_disable_is_io_error(conn, make_table):
    name = make_table.name()
    t = make_table({"cf": {}}, name=name, conn=conn)
    t.put(b"r", {b"cf:a": b"1"})
    with pytest.raises(Hbase_thrift.IOError) as exc:
        conn.delete_table(name)
    assert b"TableNotDisabledException" in exc.value.message
    # Nothing happened to the table.
    assert name.encode() in conn.tables()
    assert conn.is_table_enabled(name) is True
    assert t.row(b"r") == {b"cf:a": b"1"}


def test_delete_table_after_disable_and_with_disable_true(conn, make_table):
    a, b = make_table.name(), make_table.name()
    make_table({"cf": {}}, name=a)
    make_table({"cf": {}}, name=b)
    conn.disable_table(a)
    conn.delete_table(a)
    conn.delete_table(b, disable=True)
    tables = conn.tables()
    assert a.encode() not in tables and b.encode() not in tables


def test_recreated_table_is_empty(conn, make_table):
    name = make_table.name()
    t = make_table({"cf": {}}, name=name, conn=conn)
    t.put(b"r", {b"cf:a": b"1"})
    conn.delete_table(name, disable=True)
    make_table({"cf": {}, "cg": {}}, name=name)
    assert t.row(b"r") == {}
    assert list(t.scan()) == []
    assert sorted(t.families()) == [b"cf", b"cg"]


def test_missing_table_admin_calls_are_io_errors(conn):
    name = unique_name("missing")
    with pytest.raises(Hbase_thrift.IOError):
        conn.is_table_enabled(name)
    with pytest.raises(Hbase_thrift.IOError):
        conn.enable_table(name)
    with pytest.raises(Hbase_thrift.IOError):
        conn.disable_table(name)
    with pytest.raises(Hbase_thrift.IOError):
        conn.delete_table(name)
    with pytest.raises(Hbase_thrift.IOError):
        conn.table(name).families()


def test_regions_of_missing_table_is_empty_list(conn):
    assert conn.table(unique_name("missing")).regions() == []


def test_regions_shape(conn, make_table):
    name = make_table.name()
    t = make_table({"cf": {}}, name=name, conn=conn)
    regions = t.regions()
    assert len(regions) == 1
    r = regions[0]
    assert sorted(r) == ["end_key", "id", "name", "port", "server_name", "start_key", "version"]
    assert r["start_key"] == b"" and r["end_key"] == b""
    assert isinstance(r["id"], int) and r["id"] > 0
    # HBase region names: "<table>,<start key>,<region id>.<encoded name>."
    assert re.fullmatch(re.escape(name.encode()) + rb",,%d\.[0-9a-f]{32}\." % r["id"], r["name"]), r["name"]
    assert isinstance(r["server_name"], bytes) and r["server_name"]
    assert isinstance(r["port"], int) and 0 < r["port"] < 65536
    assert isinstance(r["version"], int)


def test_table_prefix(server, conn, make_table):
    prefix = unique_name("pfx")
    pconn = connect(server, table_prefix=prefix)
    try:
        make_table.track(prefix + "_t1")
        make_table.track(prefix + "_t2")
        pconn.create_table("t1", {"cf": {}})
        pconn.create_table("t2", {"cf": {}})
        assert pconn.tables() == [b"t1", b"t2"]
        full = conn.tables()
        assert (prefix + "_t1").encode() in full and (prefix + "_t2").encode() in full
        assert b"t1" not in full
        pconn.table("t1").put(b"r", {b"cf:a": b"v"})
        assert conn.table(prefix + "_t1").row(b"r") == {b"cf:a": b"v"}
        # use_prefix=False reaches the full name.
        assert pconn.table(prefix + "_t1", use_prefix=False).row(b"r") == {b"cf:a": b"v"}
        assert pconn.is_table_enabled("t1") is True
        pconn.delete_table("t2", disable=True)
        assert pconn.tables() == [b"t1"]
    finally:
        pconn.close()


def test_table_prefix_with_custom_separator(server, conn, make_table):
    prefix = unique_name("sep")
    pconn = connect(server, table_prefix=prefix, table_prefix_separator=b".")
    try:
        make_table.track(prefix + ".t")
        pconn.create_table("t", {"cf": {}})
        assert pconn.tables() == [b"t"]
        assert (prefix + ".t").encode() in conn.tables()
    finally:
        pconn.close()
