//! A text-level guard against a crash in MLIR 19's parser.
//!
//! MLIR 19 frees forward-reference placeholders too early when a parse error
//! follows a use of a value whose definition is *in a region that does not
//! enclose the use* (llvm/llvm-project#107121, fixed in LLVM 20 by #127778 and
//! #128011). The heap is then corrupted and the process crashes later, far
//! from the cause; our fuzz smoke test found it. Such a use is always invalid
//! (a definition must dominate its uses), so rejecting it before MLIR parses
//! the text changes nothing for valid input.
//!
//! The scan reads SSA names, regions (`{...}` that hold operations, not
//! attribute dictionaries) and definitions (results, block and function
//! arguments, region arguments of custom ops). It reports a use only when no
//! definition of the name is in the use's region or an enclosing one, but one
//! comes later elsewhere (the forward reference the crash needs). Ambiguous tokens count as definitions: reading a use as a
//! definition can only make the guard report less, never reject valid IR.

use std::collections::HashMap;

/// A rejected use: `(line, column, name, line of the later definition)`, 1-based.
pub type Finding = (usize, usize, String, usize);

struct Token {
    name: String,
    offset: usize,
    /// For a definition, the region it defines the value in.
    defines_in: Option<usize>,
    /// Ids of the open regions around the token, outermost first (id 0 is
    /// the top level).
    regions: Vec<usize>,
}

/// The first use that would trigger the upstream crash, if any.
pub fn find_misplaced_forward_reference(text: &str) -> Option<Finding> {
    let tokens = tokenize(text);
    let mut definitions: HashMap<&str, Vec<&Token>> = HashMap::new();
    for token in &tokens {
        if token.defines_in.is_some() {
            definitions.entry(&token.name).or_default().push(token);
        }
    }
    for token in tokens.iter().filter(|t| t.defines_in.is_none()) {
        let Some(defs) = definitions.get(token.name.as_str()) else {
            continue;
        };
        let visible = defs.iter().any(|d| {
            d.defines_in
                .is_some_and(|region| token.regions.contains(&region))
        });
        // The crash needs a forward reference: a definition after the use.
        let later = defs.iter().find(|d| d.offset > token.offset);
        if let (false, Some(later)) = (visible, later) {
            let (line, col) = line_col(text, token.offset);
            let (def_line, _) = line_col(text, later.offset);
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

/// What an open parenthesis starts.
#[derive(Clone, Copy, PartialEq)]
enum Paren {
    /// `"op"(...)`: operands of a generic op.
    GenericOperands,
    /// `@f(...)`: a function signature (or a call's operands).
    Symbol,
    /// `^bb0(...)`: block arguments (or a branch's operands).
    Block,
    /// Anything else: custom syntax such as `forall (%i) in`, `ins(%a : t)`.
    Other,
}

fn skip_spaces_back(bytes: &[u8], mut i: usize) -> usize {
    while i > 0 && matches!(bytes[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    i
}

fn paren_kind(bytes: &[u8], open: usize) -> Paren {
    let end = skip_spaces_back(bytes, open);
    if end > 0 && bytes[end - 1] == b'"' {
        return Paren::GenericOperands;
    }
    let mut start = end;
    while start > 0 && is_name_char(bytes[start - 1]) {
        start -= 1;
    }
    match (start < end && start > 0).then(|| bytes[start - 1]) {
        Some(b'@') => Paren::Symbol,
        Some(b'^') => Paren::Block,
        _ => Paren::Other,
    }
}

/// Whether the `{` at `open` starts an attribute dictionary rather than a
/// region: it follows `attributes`, `<` or a value separator, or its first
/// entry is `key =`, `key,`, a lone unit attribute (`{llvm.noalias}`), or it
/// is empty.
fn opens_dictionary(bytes: &[u8], open: usize) -> bool {
    let end = skip_spaces_back(bytes, open);
    if end > 0 && matches!(bytes[end - 1], b'<' | b'=' | b',' | b'[' | b'{') {
        return true;
    }
    if bytes[..end].ends_with(b"attributes") {
        return true;
    }
    let mut i = open + 1;
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    if bytes.get(i) == Some(&b'}') {
        return true;
    }
    let key_start = i;
    if bytes.get(i) == Some(&b'"') {
        i += 1;
        while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
            i += 1;
        }
        i += 1;
    } else {
        while i < bytes.len() && is_name_char(bytes[i]) {
            i += 1;
        }
    }
    if i == key_start {
        return false;
    }
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    matches!(bytes.get(i), Some(b'=') | Some(b',') | Some(b'}')) && bytes.get(i + 1) != Some(&b'=')
}

fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut regions = vec![0usize];
    let mut next_region = 1;
    // For each open `{`: whether it opened a region.
    let mut braces: Vec<bool> = Vec::new();
    let mut parens: Vec<Paren> = Vec::new();
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
            b'(' => {
                parens.push(paren_kind(bytes, i));
                i += 1;
            }
            b')' => {
                parens.pop();
                i += 1;
            }
            b'{' if bytes.get(i + 1) == Some(&b'-') && bytes.get(i + 2) == Some(&b'#') => {
                // `{-# dialect_resources ... #-}` holds no IR.
                while i + 2 < bytes.len()
                    && !(bytes[i] == b'#' && bytes[i + 1] == b'-' && bytes[i + 2] == b'}')
                {
                    i += 1;
                }
                i += 3;
            }
            b'{' => {
                let region = !opens_dictionary(bytes, i);
                if region {
                    regions.push(next_region);
                    next_region += 1;
                }
                braces.push(region);
                i += 1;
            }
            b'}' => {
                if braces.pop() == Some(true) && regions.len() > 1 {
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
                let current = *regions.last().unwrap_or(&0);
                let defines_in =
                    match definition(bytes, line_start, start, end, parens.last().copied()) {
                        Definition::Not => None,
                        Definition::Here => Some(current),
                        Definition::InNextRegion => {
                            Some(next_region_after(bytes, end, next_region))
                        }
                    };
                tokens.push(Token {
                    name: name.to_string(),
                    offset: start,
                    defines_in,
                    regions: regions.clone(),
                });
            }
            _ => i += 1,
        }
    }
    tokens
}

/// The id the next region opened after `from` will get (skipping attribute
/// dictionaries), for function arguments, which live in the body.
fn next_region_after(bytes: &[u8], from: usize, next_id: usize) -> usize {
    let mut i = from;
    let mut depth = 0i32;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'{' if depth <= 0 && !opens_dictionary(bytes, i) => return next_id,
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    // A declaration without a body: the arguments define nothing usable.
    usize::MAX
}

enum Definition {
    Not,
    /// Defined in the region the token is in.
    Here,
    /// A function argument, defined in the body that follows.
    InNextRegion,
}

/// Classifies the `%name` at `start..end`: a result of the statement
/// (`%a, %b:2 = ...`), an argument in a function signature or block header
/// (`@f(%x: t`, `^bb0(%x : t`), a region argument of custom syntax (`%i = `,
/// `(%i, %j) in`), or a use.
fn definition(
    bytes: &[u8],
    line_start: usize,
    start: usize,
    end: usize,
    paren: Option<Paren>,
) -> Definition {
    let mut after = end;
    while matches!(bytes.get(after), Some(b' ' | b'\t')) {
        after += 1;
    }
    let next = bytes.get(after).copied();
    if next == Some(b'=') && bytes.get(after + 1) != Some(&b'=') {
        return Definition::Here;
    }
    if next == Some(b':')
        && bytes.get(end) == Some(&b':')
        && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)
    {
        return Definition::Here;
    }
    match (paren, next) {
        (Some(Paren::Symbol), Some(b':')) => return Definition::InNextRegion,
        (Some(Paren::Block), Some(b':')) => return Definition::Here,
        (Some(Paren::Other), Some(b',' | b')' | b':')) => return Definition::Here,
        _ => {}
    }
    // A leading result list: the line starts with `%` and `=` follows the
    // names before any operand or type.
    let line = &bytes[line_start..];
    let Some(first) = line
        .iter()
        .position(|&c| c != b' ' && c != b'\t')
        .map(|p| line_start + p)
    else {
        return Definition::Not;
    };
    if bytes[first] != b'%' {
        return Definition::Not;
    }
    let rest = &bytes[first..];
    match rest
        .iter()
        .position(|&c| matches!(c, b'=' | b'\n' | b'"' | b'('))
    {
        Some(p)
            if rest[p] == b'=' && first + p > start && bytes.get(first + p + 1) != Some(&b'=') =>
        {
            Definition::Here
        }
        _ => Definition::Not,
    }
}
