// Strata's description of the HBase Thrift1 wire interface (the `Hbase` service as served by
// HBase 2.x's ThriftServer), written for Strata. Names, field ids, types and struct field
// requiredness are wire facts and follow HBase; everything else here is ours.
//
// One deliberate departure, invisible on the wire: every service argument is `optional`. The
// Rust code generator (pilota) rejects a request that omits an argument of default
// requiredness, and clients such as happybase omit arguments they hold as None (for example
// `columns` of getRowWithColumns). Optional arguments decode as `Option` instead. Struct fields of
// default requiredness already decode as `Option` in pilota, so structs are left as HBase has
// them.

namespace rs hbase

typedef binary Text
typedef binary Bytes
typedef i32 ScannerID

// One version of one column: its value and timestamp.
struct TCell {
  1: Bytes value,
  2: i64 timestamp
}

// A column family's settings. `name` carries a trailing ':'.
struct ColumnDescriptor {
  1: Text name,
  2: i32 maxVersions = 3,
  3: string compression = "NONE",
  4: bool inMemory = 0,
  5: string bloomFilterType = "NONE",
  6: i32 bloomFilterVectorSize = 0,
  7: i32 bloomFilterNbHashes = 0,
  8: bool blockCacheEnabled = 0,
  9: i32 timeToLive = 0x7fffffff
}

struct TRegionInfo {
  1: Text startKey,
  2: Text endKey,
  3: i64 id,
  4: Text name,
  5: byte version,
  6: Text serverName,
  7: i32 port
}

// A put (or, with isDelete, a delete) of one column spec.
struct Mutation {
  1: bool isDelete = 0,
  2: Text column,
  3: Text value,
  4: bool writeToWAL = 1
}

struct BatchMutation {
  1: Text row,
  2: list<Mutation> mutations
}

// The misspelt field name is part of the interface.
struct TIncrement {
  1: Text table,
  2: Text row,
  3: Text column,
  4: i64 ammount
}

struct TColumn {
  1: Text columnName,
  2: TCell cell
}

// A row as returned to clients: `columns` keyed by "family:qualifier", or, when the scan asked
// for sorted columns, `sortedColumns` in column order.
struct TRowResult {
  1: Text row,
  2: optional map<Text, TCell> columns,
  3: optional list<TColumn> sortedColumns
}

struct TScan {
  1: optional Text startRow,
  2: optional Text stopRow,
  3: optional i64 timestamp,
  4: optional list<Text> columns,
  5: optional i32 caching,
  6: optional Text filterString,
  7: optional i32 batchSize,
  8: optional bool sortColumns,
  9: optional bool reversed,
  10: optional bool cacheBlocks
}

struct TAppend {
  1: Text table,
  2: Text row,
  3: list<Text> columns,
  4: list<Text> values
}

exception IOError {
  1: string message,
  2: bool canRetry
}

exception IllegalArgument {
  1: string message
}

exception AlreadyExists {
  1: string message
}

enum TThriftServerType {
  ONE = 1,
  TWO = 2
}

enum TPermissionScope {
  TABLE = 0,
  NAMESPACE = 1
}

struct TAccessControlEntity {
  1: required string username,
  2: required TPermissionScope scope,
  4: required string actions,
  5: optional Bytes tableName,
  6: optional string nsName
}

// Strata extension: one permission, HBase's way (a user or @group holds actions at a
// scope). No namespace and no table: global; a namespace alone: that namespace; a table
// (ns:t or t), optionally a family and a qualifier of it.
struct TStrataPermission {
  1: optional string user,
  2: optional string namespaceName,
  3: optional Text tableName,
  4: optional Text family,
  5: optional Text qualifier,
  6: optional string actions
}

// Strata extension: a column family with every setting Strata keeps. Unset fields mean "the
// default" when creating and "unchanged" when altering.
struct TStrataFamily {
  1: optional Text name,
  2: optional i32 maxVersions,
  3: optional i32 minVersions,
  4: optional i32 timeToLive,
  5: optional string compression,
  6: optional string bloomFilterType,
  7: optional i32 blockSize,
  8: optional bool inMemory,
  9: optional bool blockCacheEnabled,
  10: optional string keepDeletedCells,
  11: optional string dataBlockEncoding,
  // ALL_SSD, ONE_SSD, HOT, WARM, COLD, LAZY_PERSIST; empty follows the server's policy.
  12: optional string storagePolicy,
  // The family's point reads may be answered by the server's row cache (ROW_CACHE).
  13: optional bool rowCache
}

// Strata extension: what `status` reports.
struct TStrataStatus {
  1: optional string version,
  2: optional i32 namespaces,
  3: optional i32 tables,
  4: optional i32 regions,
  // HBase's status counts (unset from servers before them: one master, one server).
  5: optional i32 activeMasters,
  6: optional i32 backupMasters,
  7: optional i32 liveServers,
  8: optional i32 deadServers
}

// Strata extension: a snapshot as `list_snapshots` shows it.
struct TStrataSnapshot {
  1: optional string name,
  2: optional Text table,
  // Milliseconds since the epoch.
  3: optional i64 creationTime,
  4: optional i32 regions,
  5: optional i32 files,
  6: optional i64 bytes
}

service Hbase {
  // Table administration.
  void enableTable(1: optional Bytes tableName) throws (1: IOError io)
  void disableTable(1: optional Bytes tableName) throws (1: IOError io)
  bool isTableEnabled(1: optional Bytes tableName) throws (1: IOError io)
  void compact(1: optional Bytes tableNameOrRegionName) throws (1: IOError io)
  void majorCompact(1: optional Bytes tableNameOrRegionName) throws (1: IOError io)
  list<Text> getTableNames() throws (1: IOError io)
  map<Text, bool> getTableNamesWithIsTableEnabled() throws (1: IOError io)
  map<Text, ColumnDescriptor> getColumnDescriptors(1: optional Text tableName)
    throws (1: IOError io)
  list<TRegionInfo> getTableRegions(1: optional Text tableName) throws (1: IOError io)
  void createTable(1: optional Text tableName, 2: optional list<ColumnDescriptor> columnFamilies)
    throws (1: IOError io, 2: IllegalArgument ia, 3: AlreadyExists exist)
  void deleteTable(1: optional Text tableName) throws (1: IOError io)

  // Point reads of one column.
  list<TCell> get(1: optional Text tableName, 2: optional Text row, 3: optional Text column,
    4: optional map<Text, Text> attributes) throws (1: IOError io)
  list<TCell> getVer(1: optional Text tableName, 2: optional Text row, 3: optional Text column,
    4: optional i32 numVersions, 5: optional map<Text, Text> attributes) throws (1: IOError io)
  list<TCell> getVerTs(1: optional Text tableName, 2: optional Text row,
    3: optional Text column, 4: optional i64 timestamp, 5: optional i32 numVersions,
    6: optional map<Text, Text> attributes) throws (1: IOError io)

  // Row reads.
  list<TRowResult> getRow(1: optional Text tableName, 2: optional Text row,
    3: optional map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRowWithColumns(1: optional Text tableName, 2: optional Text row,
    3: optional list<Text> columns, 4: optional map<Text, Text> attributes)
    throws (1: IOError io)
  list<TRowResult> getRowTs(1: optional Text tableName, 2: optional Text row,
    3: optional i64 timestamp, 4: optional map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRowWithColumnsTs(1: optional Text tableName, 2: optional Text row,
    3: optional list<Text> columns, 4: optional i64 timestamp,
    5: optional map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRows(1: optional Text tableName, 2: optional list<Text> rows,
    3: optional map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRowsWithColumns(1: optional Text tableName,
    2: optional list<Text> rows, 3: optional list<Text> columns,
    4: optional map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRowsTs(1: optional Text tableName, 2: optional list<Text> rows,
    3: optional i64 timestamp, 4: optional map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRowsWithColumnsTs(1: optional Text tableName,
    2: optional list<Text> rows, 3: optional list<Text> columns, 4: optional i64 timestamp,
    5: optional map<Text, Text> attributes) throws (1: IOError io)

  // Writes.
  void mutateRow(1: optional Text tableName, 2: optional Text row,
    3: optional list<Mutation> mutations, 4: optional map<Text, Text> attributes)
    throws (1: IOError io, 2: IllegalArgument ia)
  void mutateRowTs(1: optional Text tableName, 2: optional Text row,
    3: optional list<Mutation> mutations, 4: optional i64 timestamp,
    5: optional map<Text, Text> attributes) throws (1: IOError io, 2: IllegalArgument ia)
  void mutateRows(1: optional Text tableName, 2: optional list<BatchMutation> rowBatches,
    3: optional map<Text, Text> attributes) throws (1: IOError io, 2: IllegalArgument ia)
  void mutateRowsTs(1: optional Text tableName, 2: optional list<BatchMutation> rowBatches,
    3: optional i64 timestamp, 4: optional map<Text, Text> attributes)
    throws (1: IOError io, 2: IllegalArgument ia)
  i64 atomicIncrement(1: optional Text tableName, 2: optional Text row,
    3: optional Text column, 4: optional i64 value)
    throws (1: IOError io, 2: IllegalArgument ia)
  void deleteAll(1: optional Text tableName, 2: optional Text row, 3: optional Text column,
    4: optional map<Text, Text> attributes) throws (1: IOError io)
  void deleteAllTs(1: optional Text tableName, 2: optional Text row, 3: optional Text column,
    4: optional i64 timestamp, 5: optional map<Text, Text> attributes) throws (1: IOError io)
  void deleteAllRow(1: optional Text tableName, 2: optional Text row,
    3: optional map<Text, Text> attributes) throws (1: IOError io)
  void increment(1: optional TIncrement increment) throws (1: IOError io)
  void incrementRows(1: optional list<TIncrement> increments) throws (1: IOError io)
  void deleteAllRowTs(1: optional Text tableName, 2: optional Text row,
    3: optional i64 timestamp, 4: optional map<Text, Text> attributes) throws (1: IOError io)

  // Scanners.
  ScannerID scannerOpenWithScan(1: optional Text tableName, 2: optional TScan scan,
    3: optional map<Text, Text> attributes) throws (1: IOError io)
  ScannerID scannerOpen(1: optional Text tableName, 2: optional Text startRow,
    3: optional list<Text> columns, 4: optional map<Text, Text> attributes)
    throws (1: IOError io)
  ScannerID scannerOpenWithStop(1: optional Text tableName, 2: optional Text startRow,
    3: optional Text stopRow, 4: optional list<Text> columns,
    5: optional map<Text, Text> attributes) throws (1: IOError io)
  ScannerID scannerOpenWithPrefix(1: optional Text tableName,
    2: optional Text startAndPrefix, 3: optional list<Text> columns,
    4: optional map<Text, Text> attributes) throws (1: IOError io)
  ScannerID scannerOpenTs(1: optional Text tableName, 2: optional Text startRow,
    3: optional list<Text> columns, 4: optional i64 timestamp,
    5: optional map<Text, Text> attributes) throws (1: IOError io)
  ScannerID scannerOpenWithStopTs(1: optional Text tableName, 2: optional Text startRow,
    3: optional Text stopRow, 4: optional list<Text> columns, 5: optional i64 timestamp,
    6: optional map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> scannerGet(1: optional ScannerID id)
    throws (1: IOError io, 2: IllegalArgument ia)
  list<TRowResult> scannerGetList(1: optional ScannerID id, 2: optional i32 nbRows)
    throws (1: IOError io, 2: IllegalArgument ia)
  void scannerClose(1: optional ScannerID id) throws (1: IOError io, 2: IllegalArgument ia)

  // Less common calls.
  TRegionInfo getRegionInfo(1: optional Text row) throws (1: IOError io)
  list<TCell> append(1: optional TAppend append) throws (1: IOError io)
  // Removed in HBase 2; kept so the server can answer it with UNKNOWN_METHOD.
  list<TCell> getRowOrBefore(1: optional Text tableName, 2: optional Text row,
    3: optional Text family) throws (1: IOError io)
  bool checkAndPut(1: optional Text tableName, 2: optional Text row, 3: optional Text column,
    5: optional Text value, 6: optional Mutation mput, 7: optional map<Text, Text> attributes)
    throws (1: IOError io, 2: IllegalArgument ia)
  TThriftServerType getThriftServerType()
  string getClusterId()
  bool grant(1: optional TAccessControlEntity info) throws (1: IOError io)
  bool revoke(1: optional TAccessControlEntity info) throws (1: IOError io)

  // Strata extensions, for the admin calls Thrift1 lacks (used by `strata shell`). HBase's
  // server answers them with UNKNOWN_METHOD.
  list<string> strataListNamespaces() throws (1: IOError io, 2: IllegalArgument ia)
  // HBase's grant (merge: add to what the user holds there, else replace), revoke (no
  // actions: all of them) and user_permission (the permissions at the scope given).
  void strataGrant(1: optional TStrataPermission permission, 2: optional bool merge) throws (1: IOError io, 2: IllegalArgument ia)
  void strataRevoke(1: optional TStrataPermission permission) throws (1: IOError io, 2: IllegalArgument ia)
  list<TStrataPermission> strataUserPermissions(1: optional TStrataPermission scope) throws (1: IOError io, 2: IllegalArgument ia)
  void strataCreateNamespace(1: optional string name) throws (1: IOError io, 2: IllegalArgument ia)
  void strataDeleteNamespace(1: optional string name) throws (1: IOError io, 2: IllegalArgument ia)
  // durability: the table's DURABILITY (USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL or
  // FSYNC_WAL); unset is USE_DEFAULT.
  void strataCreateTable(1: optional Text tableName, 2: optional list<TStrataFamily> families,
    3: optional list<Text> splitKeys, 4: optional string durability)
    throws (1: IOError io, 2: IllegalArgument ia)
  list<TStrataFamily> strataDescribeTable(1: optional Text tableName)
    throws (1: IOError io, 2: IllegalArgument ia)
  // The table's DURABILITY, by HBase's name (USE_DEFAULT when it has none).
  string strataGetTableDurability(1: optional Text tableName)
    throws (1: IOError io, 2: IllegalArgument ia)
  // Sets the table's DURABILITY (online); USE_DEFAULT removes it.
  void strataSetTableDurability(1: optional Text tableName, 2: optional string durability)
    throws (1: IOError io, 2: IllegalArgument ia)
  // Adds the family, or changes the settings given of an existing one.
  void strataAlterFamily(1: optional Text tableName, 2: optional TStrataFamily family)
    throws (1: IOError io, 2: IllegalArgument ia)
  void strataDeleteFamily(1: optional Text tableName, 2: optional Text family)
    throws (1: IOError io, 2: IllegalArgument ia)
  void strataTruncateTable(1: optional Text tableName, 2: optional bool preserveSplits)
    throws (1: IOError io, 2: IllegalArgument ia)
  void strataFlush(1: optional Text tableOrRegionName) throws (1: IOError io, 2: IllegalArgument ia)
  // Without a split point every region splits near its middle.
  void strataSplit(1: optional Text tableOrRegionName, 2: optional Text splitPoint)
    throws (1: IOError io, 2: IllegalArgument ia)
  // Region names in full or encoded (the hex digits between the last two dots).
  void strataMergeRegions(1: optional Text regionA, 2: optional Text regionB)
    throws (1: IOError io, 2: IllegalArgument ia)
  TStrataStatus strataStatus() throws (1: IOError io, 2: IllegalArgument ia)
  // Cluster mode, on the master: moves a region (full or encoded name) to a server (its id;
  // unset: another live server); answers the server it moved to.
  string strataMoveRegion(1: optional Text regionName, 2: optional string server)
    throws (1: IOError io, 2: IllegalArgument ia)
  // Runs the balancer once; answers how many regions it moved.
  i32 strataBalance() throws (1: IOError io, 2: IllegalArgument ia)
  // Turns the balancer on or off; answers whether it was on.
  bool strataBalanceSwitch(1: optional bool on) throws (1: IOError io, 2: IllegalArgument ia)
  // Decommissions a server (on) or recommissions it (off); answers how many regions moved.
  i32 strataDecommission(1: optional string server, 2: optional bool on)
    throws (1: IOError io, 2: IllegalArgument ia)
  list<string> strataListDecommissioned() throws (1: IOError io, 2: IllegalArgument ia)
  // HBase's assign: serves a closed region again (one served already stays where it is);
  // answers its server.
  string strataAssign(1: optional Text regionName) throws (1: IOError io, 2: IllegalArgument ia)
  // HBase's unassign: closes a region; no server serves it until it is assigned.
  void strataUnassign(1: optional Text regionName) throws (1: IOError io, 2: IllegalArgument ia)
  // HBase's snapshot commands (standalone mode): snapshot, list_snapshots, delete_snapshot,
  // clone_snapshot (into a new table) and restore_snapshot (the table must be disabled).
  void strataSnapshot(1: optional Text tableName, 2: optional string snapshotName)
    throws (1: IOError io, 2: IllegalArgument ia)
  list<TStrataSnapshot> strataListSnapshots() throws (1: IOError io, 2: IllegalArgument ia)
  void strataDeleteSnapshot(1: optional string snapshotName)
    throws (1: IOError io, 2: IllegalArgument ia)
  void strataCloneSnapshot(1: optional string snapshotName, 2: optional Text tableName)
    throws (1: IOError io, 2: IllegalArgument ia)
  void strataRestoreSnapshot(1: optional string snapshotName)
    throws (1: IOError io, 2: IllegalArgument ia)
}
