//! The open database that every handle ([`Db`](crate::Db), [`Table`](crate::Table),
//! [`RowIter`](crate::RowIter)) holds: the service, the default durability, and whether it
//! was closed. Its own file so that the handles depend on it and not on each other.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use strata_engine::Durability;
use strata_server::Service;

use crate::error::{Error, Result};

/// One open database, shared by all of its handles; the last one dropped closes it.
pub(crate) struct OpenDatabase {
    service: Arc<Service>,
    durability: Durability,
    closed: AtomicBool,
    /// False when the service belongs to someone else (`Db::from_service`).
    owns_service: bool,
}

impl OpenDatabase {
    pub(crate) fn new(service: Arc<Service>, durability: Durability, owns_service: bool) -> Self {
        OpenDatabase {
            service,
            durability,
            closed: AtomicBool::new(false),
            owns_service,
        }
    }

    /// The service, unless the database was closed.
    pub(crate) fn service(&self) -> Result<&Arc<Service>> {
        if self.is_closed() {
            return Err(Error::Closed);
        }
        Ok(&self.service)
    }

    /// The service whether or not the database was closed, for `Db::service`, whose
    /// callers get the service's own `Closed` errors.
    pub(crate) fn service_even_if_closed(&self) -> &Arc<Service> {
        &self.service
    }

    /// The durability of writes that name none and whose table has none.
    pub(crate) fn durability(&self) -> Durability {
        self.durability
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Closes the service if this database owns it; closing twice is harmless.
    pub(crate) fn close(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) || !self.owns_service {
            return Ok(());
        }
        Ok(self.service.close()?)
    }
}

impl Drop for OpenDatabase {
    /// The last handle gone closes the database (flushing); an error here has nowhere to
    /// go, and the WAL still holds every acknowledged write.
    fn drop(&mut self) {
        let _ = self.close();
    }
}
