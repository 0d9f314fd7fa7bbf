//! Every job of examples/pyspark imports (the df text is checked by the
//! filetests, which parse and verify it).

use std::path::Path;

#[test]
fn examples_import() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/pyspark");
    let mut failures = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
    {
        let source = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let options = coco_pyspark::Options {
            python: "python3".into(),
            entry: None,
        };
        match coco_pyspark::import(&name, &source, &options) {
            Ok(imported) => {
                if std::env::var("SHOW").is_ok() {
                    println!("{}", imported.mlir);
                }
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
