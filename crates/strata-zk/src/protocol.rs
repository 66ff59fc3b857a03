//! The numbers of ZooKeeper's client protocol: operation codes, special xids and error
//! codes, as ZooKeeper 3.8 defines them (`ZooDefs.OpCode`, `KeeperException.Code`).

/// Operation codes of a request header's `type`.
pub mod op {
    pub const CREATE: i32 = 1;
    pub const DELETE: i32 = 2;
    pub const EXISTS: i32 = 3;
    pub const GET_DATA: i32 = 4;
    pub const SET_DATA: i32 = 5;
    pub const GET_ACL: i32 = 6;
    pub const SET_ACL: i32 = 7;
    pub const GET_CHILDREN: i32 = 8;
    pub const SYNC: i32 = 9;
    pub const PING: i32 = 11;
    pub const GET_CHILDREN2: i32 = 12;
    pub const CHECK: i32 = 13;
    pub const MULTI: i32 = 14;
    pub const CREATE2: i32 = 15;
    pub const RECONFIG: i32 = 16;
    pub const CHECK_WATCHES: i32 = 17;
    pub const REMOVE_WATCHES: i32 = 18;
    pub const CREATE_CONTAINER: i32 = 19;
    pub const DELETE_CONTAINER: i32 = 20;
    pub const CREATE_TTL: i32 = 21;
    pub const AUTH: i32 = 100;
    pub const SET_WATCHES: i32 = 101;
    pub const GET_EPHEMERALS: i32 = 103;
    pub const SET_WATCHES2: i32 = 105;
    pub const ADD_WATCH: i32 = 106;
    pub const WHO_AM_I: i32 = 107;
    pub const CLOSE_SESSION: i32 = -11;

    /// The operations that change the tree. A read-only ZooKeeper server answers each with
    /// NOTREADONLY (its `ReadOnlyRequestProcessor`), and so does this facade.
    pub const WRITES: [i32; 11] = [
        CREATE,
        DELETE,
        SET_DATA,
        SET_ACL,
        CHECK,
        MULTI,
        CREATE2,
        RECONFIG,
        CREATE_CONTAINER,
        DELETE_CONTAINER,
        CREATE_TTL,
    ];
}

/// The xid a ping carries and its reply echoes.
pub const PING_XID: i32 = -2;

/// Error codes of a reply header's `err`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ErrorCode {
    Ok = 0,
    /// The request body could not be decoded (ZooKeeper answers the same).
    MarshallingError = -5,
    /// An operation this server does not implement.
    Unimplemented = -6,
    NoNode = -101,
    /// A write sent to a read-only server.
    NotReadOnly = -119,
}

impl ErrorCode {
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// ACL permission bits (`ZooDefs.Perms`).
pub const PERM_READ: i32 = 1;
