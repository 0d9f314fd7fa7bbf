//! The natural-data check: no record `coco-bigtest generate` writes for an
//! example holds a control character. Generation keeps one only where a
//! path needs it (`coco_bigtest::natural`), and no example's path does, so
//! any found here is noise a reader would have to decode.

use std::path::Path;

/// Whether `c` is a control character a text file should not carry: C0
/// but the tab (a delimiter of several examples), DEL and C1.
fn control(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n') || ('\u{80}'..='\u{9f}').contains(&c)
}

/// `file:line: U+XXXX` for each control character in the data files under
/// `dir` (every file but coco-bigtest's reports, manifest and pytest
/// modules), at most `MAX_SHOWN`.
pub fn control_characters(dir: &Path) -> Vec<String> {
    const MAX_SHOWN: usize = 10;
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if name.starts_with("report.")
                || name == "coco-bigtest-manifest.txt"
                || name.ends_with(".py")
            {
                continue;
            }
            let text =
                String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
            for (i, line) in text.lines().enumerate() {
                if let Some(c) = line.chars().find(|&c| control(c)) {
                    found.push(format!("{}:{}: U+{:04X}", path.display(), i + 1, c as u32));
                }
            }
        }
    }
    found.truncate(MAX_SHOWN);
    found
}

/// An error naming the control characters under `dir`, if any.
pub fn check(dir: &Path, what: &str) -> Result<(), String> {
    let found = control_characters(dir);
    if found.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{what}: generated data holds control characters no path needs:\n  {}",
        found.join("\n  ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_control_characters_in_data_but_not_reports() {
        let dir = std::env::temp_dir().join(format!("coco-natural-data-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("case-1")).unwrap();
        std::fs::write(dir.join("lines.txt"), "alpha\tbravo\n").unwrap();
        std::fs::write(dir.join("report.txt"), "\u{1}\n").unwrap();
        std::fs::write(dir.join("case-1/lines.txt"), "ok\nbad\u{8e}\n").unwrap();
        let found = control_characters(&dir);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].ends_with("case-1/lines.txt:2: U+008E"),
            "{found:?}"
        );
        assert!(check(&dir, "x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
