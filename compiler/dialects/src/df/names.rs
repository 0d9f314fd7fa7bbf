//! Names that tools turn into files: a source's name (`<name>.txt`, the
//! file of an inline source in test data) and a program's name (its folder
//! when a module holds several). `coco-bigtest generate -o DIR` writes them
//! under DIR, so each must be one plain file name that stays inside it. A
//! sink's name (or its path's base name) is the folder the exported PySpark
//! job saves it in under `--output`.

/// What a source's or a program's name names.
pub const TEST_DATA: &str = "a file of generated test data";
/// What a sink's name names.
pub const JOB_OUTPUT: &str = "a folder of the exported job's output";

/// `Ok` when `name` is one plain path component: not empty, not `.` or
/// `..`, and without `/`, `\` or NUL. Otherwise what is wrong with it.
pub fn plain_file_name(name: &str, names: &str) -> Result<(), String> {
    let problem = if name.is_empty() {
        "is empty"
    } else if name == "." || name == ".." {
        "is a relative folder"
    } else if name.contains(['/', '\\']) {
        "contains a path separator"
    } else if name.contains('\0') {
        "contains a NUL character"
    } else {
        return Ok(());
    };
    Err(format!(
        "\"{}\" {problem}; it names {names}, so it must be a plain file name",
        name.escape_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_single_components_pass() {
        for good in ["lines", "store_sales", "a.b", "-x", "…"] {
            assert_eq!(plain_file_name(good, TEST_DATA), Ok(()), "{good}");
        }
        for bad in ["", ".", "..", "../../X", "a/b", "/etc", "a\\b", "a\0b"] {
            assert!(plain_file_name(bad, JOB_OUTPUT).is_err(), "{bad:?}");
        }
    }
}
