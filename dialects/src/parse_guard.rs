//! A text-level guard against a crash in MLIR 19's parser.
//!
//! MLIR 19 frees forward-reference placeholders too early when a parse error
//! follows a use of a value whose definition comes later *inside a region that
//! does not enclose the use* (llvm/llvm-project#107121, fixed in LLVM 20 by
//! #127778 and #128011). The heap is then corrupted and the process crashes
//! later, far from the cause; our fuzz smoke test found it. Such IR is always
//! invalid (a definition must dominate its uses), so rejecting it before MLIR
//! sees it changes nothing for valid input.
//!
//! The scan is conservative: anything it cannot classify as a definition is a
//! use, and it only reports a use with no earlier definition of the name whose
//! first later definition lies outside the use's enclosing regions.

/// A rejected use: `(line, column, name, line of the definition)`, 1-based.
pub type Finding = (usize, usize, String, usize);

struct Token {
    name: String,
    offset: usize,
    is_def: bool,
    /// Ids of the open `{` regions around the token, outermost first (id 0 is
    /// the top level).
    regions: Vec<usize>,
}

/// The first use that would trigger the upstream crash, if any.
pub fn find_misplaced_forward_reference(text: &str) -> Option<Finding> {
    let tokens = tokenize(text);
    let mut seen_def: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (i, token) in tokens.iter().enumerate() {
        if token.is_def {
            seen_def.insert(&token.name);
            continue;
        }
        if seen_def.contains(token.name.as_str()) {
            continue;
        }
        let Some(def) = tokens[i + 1..]
            .iter()
            .find(|t| t.is_def && t.name == token.name)
        else {
            continue;
        };
        let def_region = *def.regions.last().unwrap_or(&0);
        if !token.regions.contains(&def_region) {
            let (line, col) = line_col(text, token.offset);
            let (def_line, _) = line_col(text, def.offset);
            return Some((line, col, token.name.clone(), def_line));
        }
    }
    None
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut regions = vec![0usize];
    let mut next_region = 1;
    let mut line_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line_start = i + 1;
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'{' => {
                regions.push(next_region);
                next_region += 1;
                i += 1;
            }
            b'}' => {
                if regions.len() > 1 {
                    regions.pop();
                }
                i += 1;
            }
            b'%' => {
                let start = i;
                i += 1;
                while i < bytes.len() && is_name_char(bytes[i]) {
                    i += 1;
                }
                let name = &text[start..i];
                let mut end = i;
                // `%x#1` names result 1 of `%x`.
                if bytes.get(end) == Some(&b'#') {
                    end += 1;
                    while end < bytes.len() && bytes[end].is_ascii_digit() {
                        end += 1;
                    }
                }
                let is_def = is_definition(bytes, line_start, start, end);
                tokens.push(Token {
                    name: name.to_string(),
                    offset: start,
                    is_def,
                    regions: regions.clone(),
                });
            }
            _ => i += 1,
        }
    }
    tokens
}

/// Whether the `%name` at `start..end` defines a value: a result of the
/// statement (`%a, %b:2 = ...`), a block or region argument (`(%x: t`,
/// `, %x : t`), or an induction/iteration variable (`%i = ...`).
fn is_definition(bytes: &[u8], line_start: usize, start: usize, end: usize) -> bool {
    let mut after = end;
    if bytes.get(after) == Some(&b':') && bytes.get(after + 1).is_some_and(u8::is_ascii_digit) {
        return true;
    }
    if bytes.get(after) == Some(&b':') {
        return true;
    }
    while bytes.get(after) == Some(&b' ') {
        after += 1;
    }
    if bytes.get(after) == Some(&b'=') && bytes.get(after + 1) != Some(&b'=') {
        return true;
    }
    let mut before = start;
    while before > 0 && bytes[before - 1] == b' ' {
        before -= 1;
    }
    let opens_list = before > 0 && matches!(bytes[before - 1], b'(' | b',');
    if opens_list && bytes.get(after) == Some(&b':') {
        return true;
    }
    // A leading result list: the line starts with `%` and `=` follows the
    // names before any operand or type.
    let line = &bytes[line_start..];
    let trimmed = line
        .iter()
        .position(|&c| c != b' ' && c != b'\t')
        .map(|p| line_start + p);
    if trimmed == Some(start)
        || (trimmed.is_some_and(|t| bytes[t] == b'%')
            && before > line_start
            && bytes[before - 1] == b',')
    {
        let rest = &bytes[line_start..];
        let eq = rest
            .iter()
            .position(|&c| c == b'=' || c == b'\n' || c == b'"' || c == b'(');
        return eq.is_some_and(|p| rest[p] == b'=' && line_start + p > start);
    }
    false
}
