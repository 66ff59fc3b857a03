"""Creates YCSB's table on Strata through the Cloud Bigtable Table Admin API (Google's Python
client via BIGTABLE_EMULATOR_HOST): instance `ycsb` (a Strata namespace), table `usertable`,
family `cf` keeping one version (YCSB reads the newest), pre-split into N regions on YCSB's key
prefixes (user1 .. user9), the same layout bench/ycsb/CreateUsertable.java gives HBase.

Usage: BIGTABLE_EMULATOR_HOST=127.0.0.1:PORT python create_usertable.py N
"""

import sys
import warnings

from google.cloud import bigtable
from google.cloud.bigtable import column_family


def main():
    regions = int(sys.argv[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        client = bigtable.Client(project="p", admin=True)
    table = client.instance("ycsb").table("usertable")
    if table.exists():
        table.delete()
    splits = [("user%d" % (i * 10 // regions)).encode() for i in range(1, regions)]
    table.create(initial_split_keys=splits, column_families={"cf": column_family.MaxVersionsGCRule(1)})
    print("created usertable with %d regions" % regions)


if __name__ == "__main__":
    main()
