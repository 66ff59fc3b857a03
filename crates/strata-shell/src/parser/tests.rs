use super::*;

fn s(text: &str) -> Value {
    Value::Str(text.as_bytes().to_vec())
}

fn one(input: &str) -> Statement {
    let mut all = parse(input).unwrap();
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0)
}

#[test]
fn plain_commands_and_arguments() {
    let st = one("put 't1', 'r1', 'cf:q', 'v', 42");
    assert_eq!(st.name, "put");
    assert_eq!(
        st.args,
        vec![s("t1"), s("r1"), s("cf:q"), s("v"), Value::Int(42)]
    );
    assert_eq!(one("list").args, vec![]);
    assert_eq!(one("exists?('t')").name, "exists?");
    assert_eq!(one("scan('t')").args, vec![s("t")]);
}

#[test]
fn quoting_and_escapes() {
    assert_eq!(
        one(r#"x "a\x00b\xFF""#).args,
        vec![Value::Str(vec![b'a', 0, b'b', 0xff])]
    );
    assert_eq!(
        one(r#"x "\n\t\\\"\101\u00e9""#).args,
        vec![Value::Str("\n\t\\\"Aé".as_bytes().to_vec())]
    );
    // Single quotes keep backslashes except before \ and '.
    assert_eq!(one(r"x 'a\x00\'\\'").args, vec![s(r"a\x00'\")]);
    assert_eq!(one("x 'a;b#c'").args, vec![s("a;b#c")]);
}

#[test]
fn hashes_arrays_and_constants() {
    let st =
        one("create 't', {NAME => 'cf', VERSIONS => 3, IN_MEMORY => true}, {SPLITS => ['a', 'm']}");
    assert_eq!(st.args.len(), 3);
    assert_eq!(
        st.args[1],
        Value::Hash(vec![
            (Value::Const("NAME".into()), s("cf")),
            (Value::Const("VERSIONS".into()), Value::Int(3)),
            (Value::Const("IN_MEMORY".into()), Value::Bool(true)),
        ])
    );
    assert_eq!(
        st.args[2],
        Value::Hash(vec![(
            Value::Const("SPLITS".into()),
            Value::Array(vec![s("a"), s("m")])
        )])
    );
    // A trailing hash may omit its braces.
    let st = one("scan 't', LIMIT => 2, 'REVERSED' => true");
    assert_eq!(
        st.args[1],
        Value::Hash(vec![
            (Value::Const("LIMIT".into()), Value::Int(2)),
            (s("REVERSED"), Value::Bool(true)),
        ])
    );
    assert_eq!(
        one("x -5, 1_000, 2.5, nil").args,
        vec![
            Value::Int(-5),
            Value::Int(1000),
            Value::Float(2.5),
            Value::Nil
        ]
    );
}

#[test]
fn statements_split_on_semicolons_and_newlines() {
    let all = parse("put 't','r','f:q','v'; get 't','r'\n# comment\nlist # trailing\n").unwrap();
    let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["put", "get", "list"]);
    // Inside brackets, and after a trailing comma, a newline does not end the statement.
    let all = parse("create 't', {NAME => 'a',\n VERSIONS => 2},\n 'b'").unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].args.len(), 3);
    assert!(parse("").unwrap().is_empty());
}

#[test]
fn errors_have_positions() {
    let e = parse("put 't', 'r', @").unwrap_err();
    assert_eq!((e.line, e.column), (1, 15), "{e}");
    assert!(!e.incomplete);
    let e = parse("list\nget 't' 'r'").unwrap_err();
    assert_eq!((e.line, e.column), (2, 9), "{e}");
    let e = parse("scan 't', {LIMIT 1}").unwrap_err();
    assert!(e.message.contains("=>"), "{e}");
    assert!(parse(r#"x "\xZZ""#).is_err());
    assert!(parse("x 12abc").is_err());
}

#[test]
fn unfinished_input_is_marked_incomplete() {
    for input in [
        "put 't', 'r",
        "create 't', {NAME => 'cf',",
        "scan 't', [",
        "get('t'",
    ] {
        let e = parse(input).unwrap_err();
        assert!(e.incomplete, "{input}: {e}");
    }
}
