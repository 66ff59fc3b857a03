//! One call as a handler sees it, and what it answers.

use bytes::{Bytes, BytesMut};
use prost::Message;
use strata_engine::Cell;

use crate::exception::RemoteException;
use crate::wire::cellblock::{self, Codec};

/// A decoded request: the parameter's bytes and the cell block that came with it.
pub struct Call {
    pub method: String,
    pub param: Bytes,
    pub cells: Bytes,
    /// The connection's codec, `None` when it declared none (pure protobuf).
    pub codec: Option<Codec>,
    /// Who the connection header says is calling (SIMPLE authentication: unchecked).
    pub user: String,
}

impl Call {
    /// Decodes the parameter as `M`.
    pub fn param<M: Message + Default>(&self) -> Result<M, RemoteException> {
        M::decode(self.param.clone()).map_err(|e| {
            RemoteException::invalid(format!("cannot decode the {} request: {e}", self.method))
        })
    }

    /// Takes `count` cells off the front of the call's cell block.
    pub fn take_cells(
        &self,
        block: &mut Bytes,
        count: usize,
    ) -> Result<Vec<Cell>, RemoteException> {
        let codec = self.codec.ok_or_else(|| {
            RemoteException::invalid("cells announced, but the connection declared no codec")
        })?;
        cellblock::take(codec, block, count).map_err(|e| RemoteException::invalid(e.to_string()))
    }
}

/// A successful answer: the response message and an optional cell block.
#[derive(Debug, Default)]
pub struct Reply {
    pub body: Vec<u8>,
    pub cells: Bytes,
}

impl Reply {
    /// A message with no cells.
    pub fn message(message: &impl Message) -> Reply {
        Reply {
            body: message.encode_to_vec(),
            cells: Bytes::new(),
        }
    }

    /// A message with a cell block.
    pub fn with_cells(message: &impl Message, cells: BytesMut) -> Reply {
        Reply {
            body: message.encode_to_vec(),
            cells: cells.freeze(),
        }
    }
}

/// What a handler returns.
pub type CallResult = Result<Reply, RemoteException>;
