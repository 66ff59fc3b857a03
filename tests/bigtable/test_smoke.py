"""The gRPC endpoint answers Google's client at all: listing and a missing table."""

import pytest
from google.api_core import exceptions


def test_list_tables_in_an_empty_instance_is_a_list(instance):
    assert isinstance(instance.list_tables(), list)


def test_deleting_a_missing_table_is_not_found(instance):
    with pytest.raises(exceptions.NotFound):
        instance.table("no_such_table_here").delete()
