//! A limit on how deeply the text nests, checked before MLIR parses it.
//!
//! MLIR's parser, verifier, printer and walkers recurse once per nested
//! region, attribute or type, so deep enough nesting overflows the stack and
//! aborts the process (nested `scf.if` at about 4,000 levels on an 8 MiB
//! stack). Real programs nest a few dozen levels; a limit well below the
//! crash turns such input into an error with a location.
//!
//! Every bracket counts (`{`, `(`, `[`, `<`), outside string literals and
//! `//` comments. A `>` that closes nothing (`->`, `>=`) is not a bracket,
//! and a closing bracket also closes the `<` left open inside it, so
//! unbalanced angles never inflate the depth.

/// The limit when `COCO_MAX_NESTING` is not set.
pub const DEFAULT_MAX_NESTING: usize = 1000;

/// The environment variable that sets the limit.
pub const MAX_NESTING_VAR: &str = "COCO_MAX_NESTING";

/// The nesting limit: `COCO_MAX_NESTING` if set to a positive integer,
/// otherwise [`DEFAULT_MAX_NESTING`]; an unusable value is an error naming
/// the variable.
pub fn max_nesting() -> Result<usize, String> {
    match std::env::var(MAX_NESTING_VAR) {
        Err(_) => Ok(DEFAULT_MAX_NESTING),
        Ok(text) => match text.trim().parse::<usize>() {
            Ok(limit) if limit > 0 => Ok(limit),
            _ => Err(format!(
                "{MAX_NESTING_VAR} must be a positive integer, found '{text}'"
            )),
        },
    }
}

/// The byte offset of the first bracket that opens level `limit + 1`, if
/// the text nests deeper than `limit`.
pub fn too_deep(text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut open: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'{' | b'(' | b'[' | b'<' => {
                open.push(c);
                if open.len() > limit {
                    return Some(i);
                }
            }
            b'>' if open.last() == Some(&b'<') => {
                open.pop();
            }
            b'}' | b')' | b']' => {
                let opener = match c {
                    b'}' => b'{',
                    b')' => b'(',
                    _ => b'[',
                };
                while open.last() == Some(&b'<') {
                    open.pop();
                }
                if open.last() == Some(&opener) {
                    open.pop();
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_kind_of_bracket() {
        assert_eq!(too_deep("{([<>])}", 4), None);
        assert_eq!(too_deep("{([<>])}", 3), Some(3));
    }

    #[test]
    fn strings_and_comments_do_not_count() {
        assert_eq!(too_deep(r#"{ "{{{\"{{" } // {{{{"#, 1), None);
    }

    #[test]
    fn arrows_and_comparisons_do_not_unbalance_the_count() {
        // `->` closes nothing; without the rule it would pop the `(`.
        let text = "{ (i32) -> (i32) { a >= b } }";
        assert_eq!(too_deep(text, 2), None);
        assert_eq!(too_deep(text, 1), Some(2));
        // An unclosed `<` closes with the bracket around it.
        assert_eq!(too_deep("{ (a < b) } { ((x)) }", 3), None);
    }

    #[test]
    fn deep_input_is_found_in_linear_time() {
        let depth = 200_000;
        let text = "{".repeat(depth) + &"}".repeat(depth);
        assert_eq!(too_deep(&text, depth), None);
        assert_eq!(too_deep(&text, 1000), Some(1000));
    }
}
