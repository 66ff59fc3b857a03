//! A server on a loopback port and a minimal client that speaks the wire as hbase-client
//! does: preamble, connection header, then numbered calls.

#![allow(
    dead_code,
    clippy::disallowed_methods,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::{Buf, Bytes, BytesMut};
use prost::Message;
use strata_hrpc::pb;
use strata_hrpc::wire::frame;
use strata_hrpc::{Context, ServerAddr, SingleServer};
use strata_server::{Service, ServiceOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub struct TestServer {
    pub addr: SocketAddr,
    pub service: Arc<Service>,
    _dir: tempfile::TempDir,
    _stop: tokio::sync::oneshot::Sender<()>,
}

pub async fn start() -> TestServer {
    start_with(|ctx| ctx).await
}

/// A server whose context `adjust` changes first (a short heartbeat time, say).
pub async fn start_with(adjust: impl FnOnce(Context) -> Context) -> TestServer {
    start_configured(|_| {}, adjust).await
}

/// A server whose service options `options` changes and whose context `adjust` changes.
pub async fn start_configured(
    options: impl FnOnce(&mut ServiceOptions),
    adjust: impl FnOnce(Context) -> Context,
) -> TestServer {
    let dir = tempfile::tempdir().unwrap();
    let mut service_options = ServiceOptions::new(dir.path());
    options(&mut service_options);
    let service = Service::open(service_options).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let topology = Arc::new(SingleServer {
        cluster_id: "test-cluster".into(),
        addr: ServerAddr {
            host: "127.0.0.1".into(),
            port: addr.port(),
            start_code: 42,
        },
    });
    let ctx = Arc::new(adjust(Context::new(Arc::clone(&service), topology)));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let runtime = tokio::runtime::Handle::current();
    tokio::spawn(strata_hrpc::serve_listener(
        listener,
        ctx,
        runtime,
        Default::default(),
        async {
            let _ = stopped.await;
        },
    ));
    TestServer {
        addr,
        service,
        _dir: dir,
        _stop: stop,
    }
}

/// One answer: its header, body and cells.
pub struct Answer {
    pub header: pb::ResponseHeader,
    pub body: Bytes,
    pub cells: Bytes,
}

impl Answer {
    pub fn decode<M: Message + Default>(&self) -> M {
        assert!(
            self.header.exception.is_none(),
            "exception: {:?}",
            self.header.exception
        );
        M::decode(self.body.clone()).unwrap()
    }

    /// A scan answer with the results its cell block holds (a client with a codec gets
    /// counts in the message and the cells in the block) put back into `results`.
    pub fn scan(&self) -> pb::ScanResponse {
        let mut response: pb::ScanResponse = self.decode();
        if response.cells_per_result.is_empty() {
            return response;
        }
        let mut block = self.cells.clone();
        let codec = strata_hrpc::wire::cellblock::Codec::KeyValue;
        for (count, partial) in response
            .cells_per_result
            .iter()
            .zip(response.partial_flag_per_result.iter())
        {
            let cells =
                strata_hrpc::wire::cellblock::take(codec, &mut block, *count as usize).unwrap();
            let mut result = strata_hrpc::results::cells_result(&cells);
            result.partial = Some(*partial);
            response.results.push(result);
        }
        assert!(block.is_empty(), "cells left over in the block");
        response
    }

    /// A get answer with its result's cells taken from the cell block.
    pub fn get(&self) -> pb::GetResponse {
        let mut response: pb::GetResponse = self.decode();
        if let Some(result) = response.result.as_mut() {
            let count = result.associated_cell_count.unwrap_or(0) as usize;
            let mut block = self.cells.clone();
            let codec = strata_hrpc::wire::cellblock::Codec::KeyValue;
            let cells = strata_hrpc::wire::cellblock::take(codec, &mut block, count).unwrap();
            result
                .cell
                .extend(strata_hrpc::results::cells_result(&cells).cell);
        }
        response
    }

    pub fn exception_class(&self) -> String {
        self.header
            .exception
            .as_ref()
            .map(|e| e.exception_class_name().to_string())
            .unwrap_or_default()
    }
}

pub struct Client {
    pub stream: TcpStream,
    next_call: u32,
}

impl Client {
    pub async fn connect(addr: SocketAddr, service: &str, codec: Option<&str>) -> Client {
        Client::connect_as(addr, service, codec, "tester").await
    }

    /// A connection whose header names `user`.
    pub async fn connect_as(
        addr: SocketAddr,
        service: &str,
        codec: Option<&str>,
        user: &str,
    ) -> Client {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(b"HBas\x00\x50").await.unwrap();
        let header = pb::ConnectionHeader {
            user_info: Some(pb::UserInformation {
                effective_user: user.into(),
                real_user: None,
            }),
            service_name: Some(service.into()),
            cell_block_codec_class: codec.map(Into::into),
            ..Default::default()
        }
        .encode_to_vec();
        stream.write_u32(header.len() as u32).await.unwrap();
        stream.write_all(&header).await.unwrap();
        Client {
            stream,
            next_call: 1,
        }
    }

    /// Sends a call without waiting; returns its id.
    pub async fn send(&mut self, method: &str, param: &impl Message, cells: &[u8]) -> u32 {
        let call_id = self.next_call;
        self.next_call += 1;
        let header = pb::RequestHeader {
            call_id: Some(call_id),
            method_name: Some(method.into()),
            request_param: Some(true),
            cell_block_meta: (!cells.is_empty()).then_some(pb::CellBlockMeta {
                length: Some(cells.len() as u32),
            }),
            ..Default::default()
        };
        let frame = frame::encode_request(&header, &param.encode_to_vec(), cells);
        self.stream.write_all(&frame).await.unwrap();
        call_id
    }

    /// Reads the next answer; `None` when the server closed the connection.
    pub async fn receive(&mut self) -> Option<Answer> {
        let len = self.stream.read_u32().await.ok()? as usize;
        let mut buf = BytesMut::zeroed(len);
        self.stream.read_exact(&mut buf).await.ok()?;
        let mut buf = buf.freeze();
        let header = pb::ResponseHeader::decode_length_delimited(&mut buf).unwrap();
        let body = if header.exception.is_none() && buf.has_remaining() {
            let n = prost::encoding::decode_varint(&mut buf).unwrap() as usize;
            buf.split_to(n)
        } else {
            Bytes::new()
        };
        Some(Answer {
            header,
            body,
            cells: buf,
        })
    }

    pub async fn call(&mut self, method: &str, param: &impl Message) -> Answer {
        let id = self.send(method, param, &[]).await;
        let answer = self.receive().await.expect("an answer");
        assert_eq!(answer.header.call_id(), id);
        answer
    }
}

pub fn table(name: &str) -> pb::TableName {
    pb::TableName {
        namespace: Bytes::from_static(b"default"),
        qualifier: Bytes::copy_from_slice(name.as_bytes()),
    }
}

/// Creates table `name` with family `f` and the given split keys, over MasterService.
pub async fn create_table(addr: SocketAddr, name: &str, splits: &[&[u8]]) {
    let mut master = Client::connect(addr, "MasterService", None).await;
    let request = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(table(name)),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                attributes: vec![pb::BytesBytesPair {
                    first: Bytes::from_static(b"VERSIONS"),
                    second: Bytes::from_static(b"3"),
                }],
                configuration: vec![],
            }],
            ..Default::default()
        },
        split_keys: splits.iter().map(|s| Bytes::copy_from_slice(s)).collect(),
        ..Default::default()
    };
    let answer = master.call("CreateTable", &request).await;
    let created: pb::ProcedureResponse = answer.decode();
    assert!(created.proc_id.is_some());
}

/// The meta row of the region holding `row`, found as the client finds it.
pub async fn locate(client: &mut Client, name: &str, row: &[u8]) -> pb::RegionInfo {
    let mut start = format!("{name},").into_bytes();
    start.extend_from_slice(row);
    start.extend_from_slice(b",99999999999999");
    let request = pb::ScanRequest {
        region: Some(region_spec(b"hbase:meta,,1")),
        scan: Some(pb::Scan {
            start_row: Some(Bytes::from(start)),
            stop_row: Some(Bytes::from(format!("{name},,"))),
            include_stop_row: Some(true),
            reversed: Some(true),
            column: vec![pb::Column {
                family: Bytes::from_static(b"info"),
                qualifier: vec![],
            }],
            ..Default::default()
        }),
        number_of_rows: Some(1),
        limit_of_rows: Some(1),
        close_scanner: Some(true),
        ..Default::default()
    };
    let answer = client.call("Scan", &request).await.scan();
    let cells = &answer.results[0].cell;
    let info = cells
        .iter()
        .find(|c| c.qualifier.as_deref() == Some(&b"regioninfo"[..]))
        .unwrap();
    let value = info.value.clone().unwrap();
    assert_eq!(&value[..4], b"PBUF");
    pb::RegionInfo::decode(&value[4..]).unwrap()
}

pub fn region_spec(name: &[u8]) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: Bytes::copy_from_slice(name),
    }
}

/// The full region name of `info`.
pub fn region_name_of(info: &pb::RegionInfo) -> Bytes {
    let table = String::from_utf8(info.table_name.qualifier.to_vec()).unwrap();
    strata_hrpc::region_name::region_name(&table, info.start_key(), info.region_id)
}
