//! Bigtable resource names and their HBase equivalents: instance `ns` is namespace `ns`, so
//! `projects/p/instances/ns/tables/t` is HBase's `ns:t` (the project is ignored).

use strata_server::TableName;
use tonic::Status;

/// The instance (namespace) of `projects/{p}/instances/{i}`.
pub fn instance_of(parent: &str) -> Result<String, Status> {
    match parent.split('/').collect::<Vec<_>>().as_slice() {
        ["projects", project, "instances", instance]
            if !project.is_empty() && !instance.is_empty() =>
        {
            Ok((*instance).to_string())
        }
        _ => Err(Status::invalid_argument(format!(
            "parent: {parent:?} is not of the form projects/{{project}}/instances/{{instance}}"
        ))),
    }
}

/// The HBase table named by `projects/{p}/instances/{i}/tables/{t}`; `field` names the
/// request field in the error.
pub fn table_of(field: &str, name: &str) -> Result<TableName, Status> {
    match name.split('/').collect::<Vec<_>>().as_slice() {
        ["projects", project, "instances", instance, "tables", table]
            if !project.is_empty() && !instance.is_empty() && !table.is_empty() =>
        {
            TableName::parse(&format!("{instance}:{table}"))
                .map_err(|e| Status::invalid_argument(format!("{field}: {e}")))
        }
        _ => Err(Status::invalid_argument(format!(
            "{field}: {name:?} is not of the form projects/{{project}}/instances/{{instance}}/tables/{{table}}"
        ))),
    }
}

/// The Bigtable name of `table` under `project`.
pub fn bigtable_name(project: &str, table: &TableName) -> String {
    format!(
        "projects/{project}/instances/{}/tables/{}",
        table.namespace, table.name
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_is_the_namespace() {
        let t = table_of("table_name", "projects/p/instances/ns/tables/t").unwrap();
        assert_eq!(t.to_string(), "ns:t");
        assert_eq!(bigtable_name("p", &t), "projects/p/instances/ns/tables/t");
        assert_eq!(instance_of("projects/p/instances/ns").unwrap(), "ns");
    }

    #[test]
    fn malformed_names_name_the_field() {
        let err = table_of("table_name", "tables/t").unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert!(err.message().starts_with("table_name:"));
        assert!(instance_of("projects/p").is_err());
    }
}
