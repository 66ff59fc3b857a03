//! The small read-only documents: the gateway's version, the cluster's version and status,
//! the table list and a table's regions.

use serde_json::{json, Value};
use strata_server::table::ServedBy;
use strata_server::{RegionInfo, TableName};

use super::cellset::encode_b64;
use super::xml::{self, attributes, empty_element};
use crate::format::Format;

/// The REST protocol version HBase's server reports.
pub const REST_VERSION: &str = "0.0.3";
/// The HBase version whose REST API the gateway follows (reported as the cluster version).
pub const HBASE_VERSION: &str = "2.6.1";

fn document(body: String) -> String {
    format!("{}{body}", xml::DECLARATION)
}

/// `/version`: HBase's fields, filled with what Strata runs on.
pub fn version(format: Format) -> String {
    let server = format!("strata-rest/{}", env!("CARGO_PKG_VERSION"));
    let os = format!("{} {}", std::env::consts::OS, std::env::consts::ARCH);
    let jvm = "none (Strata is native)".to_string();
    let jersey = String::new();
    let revision = format!("strata-{}", env!("CARGO_PKG_VERSION"));
    match format {
        Format::Json => json!({"Server": server, "Jersey": jersey, "Version": HBASE_VERSION,
            "Revision": revision, "REST": REST_VERSION, "JVM": jvm, "OS": os})
        .to_string(),
        // JAXB writes the attributes in alphabetical order.
        Format::Xml => document(empty_element(
            "Version",
            &[
                ("JVM", jvm),
                ("Jersey", jersey),
                ("OS", os),
                ("REST", REST_VERSION.to_string()),
                ("Revision", revision),
                ("Server", server),
                ("Version", HBASE_VERSION.to_string()),
            ],
        )),
        _ => format!(
            "rest {REST_VERSION} [JVM: {jvm}] [OS: {os}] [Server: {server}] [Jersey: {jersey}] \
             [Version: {HBASE_VERSION}] [Revision: {revision}]\n"
        ),
    }
}

/// `/version/cluster`.
pub fn cluster_version(format: Format) -> String {
    match format {
        Format::Json => json!({ "Version": HBASE_VERSION }).to_string(),
        Format::Xml => document(empty_element(
            "ClusterVersion",
            &[("Version", HBASE_VERSION.to_string())],
        )),
        _ => HBASE_VERSION.to_string(),
    }
}

/// `/`: every table, by name.
pub fn table_list(tables: &[TableName], format: Format) -> String {
    match format {
        Format::Json => {
            let tables: Vec<Value> = tables
                .iter()
                .map(|t| json!({ "name": t.to_string() }))
                .collect();
            json!({ "table": tables }).to_string()
        }
        Format::Xml => {
            let items: String = tables
                .iter()
                .map(|t| empty_element("table", &[("name", t.to_string())]))
                .collect();
            if items.is_empty() {
                return document("<TableList/>".to_string());
            }
            document(format!("<TableList>{items}</TableList>"))
        }
        _ => tables.iter().map(|t| format!("{t}\n")).collect(),
    }
}

/// A region's `host:port` as REST reports it: this server's `location`, a cluster peer's
/// advertised host and HTTP port, or nothing while no server serves it.
fn region_location(region: &RegionInfo, location: &str) -> String {
    match &region.served_by {
        ServedBy::ThisServer => location.to_string(),
        ServedBy::Peer(at) => format!("{}:{}", at.host, at.http_port),
        ServedBy::Nobody => String::new(),
    }
}

/// `/<table>/regions`.
pub fn table_info(
    table: &TableName,
    regions: &[RegionInfo],
    location: &str,
    format: Format,
) -> String {
    let region_attrs = |r: &RegionInfo| {
        vec![
            ("endKey", encode_b64(&r.end_key)),
            ("id", r.id.to_string()),
            ("location", region_location(r, location)),
            ("name", r.name.clone()),
            ("startKey", encode_b64(&r.start_key)),
        ]
    };
    match format {
        Format::Json => {
            let regions: Vec<Value> = regions
                .iter()
                .map(|r| {
                    json!({"endKey": encode_b64(&r.end_key), "id": r.id, "location": region_location(r, location),
                        "name": r.name, "startKey": encode_b64(&r.start_key)})
                })
                .collect();
            json!({ "name": table.to_string(), "Region": regions }).to_string()
        }
        Format::Xml => {
            let items: String = regions
                .iter()
                .map(|r| empty_element("Region", &region_attrs(r)))
                .collect();
            document(format!(
                "<TableInfo{}>{items}</TableInfo>",
                attributes(&[("name", table.to_string())])
            ))
        }
        _ => {
            let mut out = format!("{table}:\n");
            for r in regions {
                out.push_str(&format!(
                    "  {} [\n    startKey='{}'\n    endKey='{}'\n    id={}\n    location='{}'\n  ]\n",
                    r.name,
                    String::from_utf8_lossy(&r.start_key),
                    String::from_utf8_lossy(&r.end_key),
                    r.id,
                    region_location(r, location),
                ));
            }
            out
        }
    }
}

/// One region as the cluster status lists it.
pub struct RegionLoad {
    pub name: String,
    pub stores: usize,
}

/// `/status/cluster`: Strata is one live node holding every region.
pub fn cluster_status(regions: &[RegionLoad], location: &str, format: Format) -> String {
    let count = regions.len();
    match format {
        Format::Json => {
            let loads: Vec<Value> = regions
                .iter()
                .map(|r| json!({"name": encode_b64(r.name.as_bytes()), "stores": r.stores}))
                .collect();
            json!({"LiveNodes": [{"name": location, "startCode": 0, "requests": 0,
                    "heapSizeMB": 0, "maxHeapSizeMB": 0, "Region": loads}],
                "DeadNodes": [], "regions": count, "requests": 0, "averageLoad": count as f64})
            .to_string()
        }
        Format::Xml => {
            let loads: String = regions
                .iter()
                .map(|r| {
                    empty_element(
                        "Region",
                        &[
                            ("name", encode_b64(r.name.as_bytes())),
                            ("stores", r.stores.to_string()),
                        ],
                    )
                })
                .collect();
            // JAXB's alphabetical attribute order.
            let node = attributes(&[
                ("heapSizeMB", "0".into()),
                ("maxHeapSizeMB", "0".into()),
                ("name", location.to_string()),
                ("requests", "0".into()),
                ("startCode", "0".into()),
            ]);
            document(format!(
                "<ClusterStatus{}><DeadNodes/><LiveNodes><Node{node}>{loads}</Node></LiveNodes></ClusterStatus>",
                attributes(&[
                    ("averageLoad", format!("{:.1}", count as f64)),
                    ("regions", count.to_string()),
                    ("requests", "0".into()),
                ])
            ))
        }
        _ => {
            let mut out = format!("1 live servers, 0 dead servers, {count}.0000 average load\n\n1 live servers\n    {location} 0\n        requests=0, regions={count}\n\n");
            for r in regions {
                out.push_str(&format!(
                    "        {}\n            stores={}\n",
                    r.name, r.stores
                ));
            }
            out.push_str("\n0 dead servers\n");
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use strata_server::remote::ServerAddress;

    use super::*;

    fn region(id: u64, served_by: ServedBy) -> RegionInfo {
        RegionInfo {
            id,
            start_key: Bytes::new(),
            end_key: Bytes::new(),
            name: format!("t,,{id}"),
            served_by,
        }
    }

    #[test]
    fn each_region_is_located_at_the_server_serving_it() {
        let peer = ServerAddress {
            host: "10.0.0.2".into(),
            thrift_port: 9090,
            http_port: 8081,
            grpc_port: 50051,
        };
        let regions = [
            region(1, ServedBy::ThisServer),
            region(2, ServedBy::Peer(peer)),
            region(3, ServedBy::Nobody),
        ];
        let table = TableName::parse("t").unwrap();
        let json: Value =
            serde_json::from_str(&table_info(&table, &regions, "here:8080", Format::Json)).unwrap();
        let locations: Vec<&str> = json["Region"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["location"].as_str().unwrap())
            .collect();
        assert_eq!(locations, ["here:8080", "10.0.0.2:8081", ""]);
    }
}
