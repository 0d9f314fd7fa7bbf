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
//! comes later elsewhere (the forward reference the crash needs). Ambiguous
//! tokens count as definitions: reading a use as a definition can only make
//! the guard report less, never reject valid IR.
//!
//! It runs on every input, so it is linear in the text (up to a sort of each
//! name's definitions): regions are numbered in the order they open, which
//! makes "region `r` encloses region `c`" the interval test
//! `r <= c < end(r)` (`end(r)`: the next number when `r` closes), and a
//! name's definitions become a few disjoint intervals to search.

use std::collections::HashMap;

/// A rejected use: `(line, column, name, line of the later definition)`, 1-based.
pub type Finding = (usize, usize, String, usize);

/// A region number that no region has.
const NO_REGION: usize = usize::MAX;

struct Token<'t> {
    /// `%name`, without a `#n` result suffix.
    name: &'t str,
    offset: usize,
    /// For a definition, the region it defines the value in.
    defines_in: Option<usize>,
    /// The innermost open region around the token (0 is the top level).
    region: usize,
}

/// A name's definitions: their offsets in text order, and the regions they
/// define the name in as `(first, end)` intervals of region numbers.
type Definitions = (Vec<usize>, Vec<(usize, usize)>);

/// The regions of a text: region `r` opens as the `r`-th and holds exactly
/// the regions numbered `r..end[r]`.
struct Regions {
    end: Vec<usize>,
}

impl Regions {
    fn encloses(&self, outer: usize, inner: usize) -> bool {
        outer <= inner && self.end.get(outer).is_some_and(|&end| inner < end)
    }
}

/// The first use that would trigger the upstream crash, if any.
pub fn find_misplaced_forward_reference(text: &str) -> Option<Finding> {
    let (tokens, regions) = tokenize(text);
    // Per name: its definitions in text order, and the regions they define
    // values in, merged into disjoint intervals sorted by start.
    let mut definitions: HashMap<&str, Definitions> = HashMap::new();
    for token in &tokens {
        if let Some(region) = token.defines_in {
            let (offsets, scopes) = definitions.entry(token.name).or_default();
            offsets.push(token.offset);
            if region < regions.end.len() {
                scopes.push((region, regions.end[region]));
            }
        }
    }
    for (_, scopes) in definitions.values_mut() {
        *scopes = outermost(std::mem::take(scopes));
    }
    for token in tokens.iter().filter(|t| t.defines_in.is_none()) {
        let Some((offsets, scopes)) = definitions.get(token.name) else {
            continue;
        };
        let visible = match scopes.partition_point(|&(start, _)| start <= token.region) {
            0 => false,
            i => regions.encloses(scopes[i - 1].0, token.region),
        };
        // The crash needs a forward reference: a definition after the use.
        let later = offsets.get(offsets.partition_point(|&o| o <= token.offset));
        if let (false, Some(&later)) = (visible, later) {
            let (line, col) = line_col(text, token.offset);
            let (def_line, _) = line_col(text, later);
            return Some((line, col, token.name.to_string(), def_line));
        }
    }
    None
}

/// The outermost of nested-or-disjoint intervals, sorted by start: the
/// others lie inside them.
fn outermost(mut intervals: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    // Outer intervals first among those with the same start.
    intervals.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut kept: Vec<(usize, usize)> = Vec::new();
    for interval in intervals {
        match kept.last() {
            Some(last) if interval.0 < last.1 => {}
            _ => kept.push(interval),
        }
    }
    kept
}

/// 1-based line and column (in characters) of the byte `offset`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
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
    /// `^bb0(...)` opening a line (or a region): block arguments.
    Block,
    /// `^bb0(...)` after an op: a branch's operands, which are uses.
    Successor,
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
        Some(b'^') => {
            // A block header starts its line (or follows a region's `{`); a
            // successor follows its branch op. Reading successor operands as
            // definitions hid a top-level `cf.br ^b(%v : i64)` whose `%v`
            // is defined later in a function, which crashed MLIR 19's
            // parser (fuzz smoke test).
            let before = skip_spaces_back(bytes, start - 1);
            if before == 0 || matches!(bytes[before - 1], b'\n' | b'{') {
                Paren::Block
            } else {
                Paren::Successor
            }
        }
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

/// A function argument waiting for the region it is defined in: the body
/// that follows its signature.
struct PendingArgument {
    token: usize,
    /// Parentheses open at the token.
    depth: i64,
    /// The number the next region opened gets.
    next_region: usize,
}

fn tokenize(text: &str) -> (Vec<Token<'_>>, Regions) {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut open_regions = vec![0usize];
    let mut end = vec![NO_REGION];
    // For each open `{`: whether it opened a region.
    let mut braces: Vec<bool> = Vec::new();
    let mut parens: Vec<Paren> = Vec::new();
    let mut depth = 0i64;
    // Every region's `{` with the parentheses open there, in text order.
    let mut region_braces: Vec<(usize, i64)> = Vec::new();
    let mut pending = Vec::new();
    let mut results = ResultList::default();
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
                depth += 1;
                i += 1;
            }
            b')' => {
                parens.pop();
                depth -= 1;
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
                    open_regions.push(end.len());
                    end.push(NO_REGION);
                    region_braces.push((i, depth));
                }
                braces.push(region);
                i += 1;
            }
            b'}' => {
                if braces.pop() == Some(true) && open_regions.len() > 1 {
                    if let Some(closed) = open_regions.pop() {
                        end[closed] = end.len();
                    }
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
                let mut name_end = i;
                // `%x#1` names result 1 of `%x`.
                if bytes.get(name_end) == Some(&b'#') {
                    name_end += 1;
                    while name_end < bytes.len() && bytes[name_end].is_ascii_digit() {
                        name_end += 1;
                    }
                }
                let current = *open_regions.last().unwrap_or(&0);
                let place = Place {
                    line_start,
                    start,
                    end: name_end,
                };
                let defines_in =
                    match definition(bytes, place, parens.last().copied(), &mut results) {
                        Definition::Not => None,
                        Definition::Here => Some(current),
                        Definition::InNextRegion => {
                            pending.push(PendingArgument {
                                token: tokens.len(),
                                depth,
                                next_region: end.len(),
                            });
                            Some(NO_REGION)
                        }
                    };
                tokens.push(Token {
                    name,
                    offset: start,
                    defines_in,
                    region: current,
                });
            }
            _ => i += 1,
        }
    }
    resolve_arguments(&mut tokens, &pending, &region_braces);
    (tokens, Regions { end })
}

/// Function arguments live in the next region the text opens, if a region
/// `{` follows that is not nested deeper in parentheses than the argument;
/// otherwise (a declaration without a body) they define nothing usable.
fn resolve_arguments(tokens: &mut [Token], pending: &[PendingArgument], braces: &[(usize, i64)]) {
    // The fewest parentheses open at any region `{` from each one on.
    let mut fewest = vec![i64::MAX; braces.len() + 1];
    for (k, &(_, depth)) in braces.iter().enumerate().rev() {
        fewest[k] = fewest[k + 1].min(depth);
    }
    let mut next_brace = 0;
    for argument in pending {
        let offset = tokens[argument.token].offset;
        while next_brace < braces.len() && braces[next_brace].0 < offset {
            next_brace += 1;
        }
        if fewest[next_brace] <= argument.depth {
            tokens[argument.token].defines_in = Some(argument.next_region);
        }
    }
}

enum Definition {
    Not,
    /// Defined in the region the token is in.
    Here,
    /// A function argument, defined in the body that follows.
    InNextRegion,
}

/// Where a `%name` token is: `start..end` (with any `#n` suffix), on the
/// line that starts at `line_start`.
#[derive(Clone, Copy)]
struct Place {
    line_start: usize,
    start: usize,
    end: usize,
}

/// The leading result list of the line last asked about, read once per
/// line: where its `=` is, if the line starts with `%` and `=` follows the
/// names before any operand or type.
#[derive(Default)]
struct ResultList {
    line_start: Option<usize>,
    equals: Option<usize>,
}

impl ResultList {
    fn equals_on(&mut self, bytes: &[u8], line_start: usize) -> Option<usize> {
        if self.line_start != Some(line_start) {
            self.line_start = Some(line_start);
            self.equals = leading_result_list(bytes, line_start);
        }
        self.equals
    }
}

fn leading_result_list(bytes: &[u8], line_start: usize) -> Option<usize> {
    let first = bytes[line_start..]
        .iter()
        .position(|&c| c != b' ' && c != b'\t')
        .map(|p| line_start + p)?;
    if bytes[first] != b'%' {
        return None;
    }
    let p = bytes[first..]
        .iter()
        .position(|&c| matches!(c, b'=' | b'\n' | b'"' | b'('))
        .map(|p| first + p)?;
    (bytes[p] == b'=' && bytes.get(p + 1) != Some(&b'=')).then_some(p)
}

/// Classifies the `%name` at `place`: a result of the statement
/// (`%a, %b:2 = ...`), an argument in a function signature or block header
/// (`@f(%x: t`, `^bb0(%x : t`), a region argument of custom syntax (`%i = `,
/// `(%i, %j) in`), or a use.
fn definition(
    bytes: &[u8],
    place: Place,
    paren: Option<Paren>,
    results: &mut ResultList,
) -> Definition {
    let end = place.end;
    let mut after = end;
    while matches!(bytes.get(after), Some(b' ' | b'\t')) {
        after += 1;
    }
    let next = bytes.get(after).copied();
    if next == Some(b'=') && bytes.get(after + 1) != Some(&b'=') {
        return Definition::Here;
    }
    // The value after `=` is always a use (`scf.for %i = %lb`, `gpu.launch
    // ... (%gx = %n, ...)`, `iter_args(%acc = %init)`), however the list
    // around it reads: such an operand defined later inside the op's own
    // region crashed MLIR 19's gpu.launch parser (fuzz smoke test).
    let before = skip_spaces_back(bytes, place.start);
    if before > 0
        && bytes[before - 1] == b'='
        && !matches!(
            bytes.get(before.wrapping_sub(2)),
            Some(b'=' | b'!' | b'<' | b'>')
        )
    {
        return Definition::Not;
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
    match results.equals_on(bytes, place.line_start) {
        Some(equals) if equals > place.start => Definition::Here,
        _ => Definition::Not,
    }
}

#[cfg(test)]
mod tests {
    use super::find_misplaced_forward_reference as guard;

    // Inputs that took the quadratic guard tens of seconds (or gigabytes):
    // names shared by thousands of definitions, one long signature line,
    // deep nesting. Each is checked for a finding at its very end, so the
    // whole text is scanned.

    #[test]
    fn a_branch_operand_defined_later_in_a_function() {
        let text = "  cf.br ^done(%zero : i64)\nfunc.func @f() {\n  %zero = arith.constant 0 : i64\n  return\n}\n";
        let finding = guard(text).expect("the use is reported");
        assert_eq!((finding.0, finding.2.as_str(), finding.3), (1, "%zero", 3));
    }

    #[test]
    fn block_headers_still_define_their_arguments() {
        let text = "func.func @f(%c: i1) {\n  cf.cond_br %c, ^a, ^b(%c : i1)\n^a:\n  cf.br ^b(%c : i1)\n^b(%x: i1):\n  return\n}\n";
        assert_eq!(guard(text), None);
    }

    #[test]
    fn thousands_of_functions_sharing_names() {
        let mut text: String = (0..8_000)
            .map(|i| {
                format!(
                    "func.func @f{i}(%arg0: f32) -> f32 {{\n  %0 = arith.addf %arg0, %arg0 : f32\n  return %0 : f32\n}}\n"
                )
            })
            .collect();
        assert_eq!(guard(&text), None);
        text.push_str("%y = arith.negf %0 : f32\nfunc.func @g() {\n  %0 = arith.constant 1.0 : f32\n  return\n}\n");
        assert_eq!(guard(&text), Some((32_001, 17, "%0".into(), 32_003)));
    }

    #[test]
    fn a_function_with_twenty_thousand_arguments() {
        let arguments: Vec<String> = (0..20_000).map(|i| format!("%a{i}: f32")).collect();
        let mut text = format!(
            "func.func @wide({}) -> f32 {{\n  return %a19999 : f32\n}}\n",
            arguments.join(", ")
        );
        assert_eq!(guard(&text), None);
        text.push_str("%y = arith.negf %a7 : f32\nfunc.func @g(%a7: f32) {\n  return\n}\n");
        assert_eq!(guard(&text), Some((4, 17, "%a7".into(), 5)));
    }

    #[test]
    fn an_operand_defined_later_in_the_ops_own_region() {
        let text = "func.func @f() {\n  %c1 = arith.constant 1 : index\n  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)\n             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {\n    %c4 = arith.constant 4 : index\n    gpu.terminator\n  }\n  return\n}\n";
        assert_eq!(guard(text), Some((3, 46, "%c4".into(), 5)));
        let valid = text.replace("%gx = %c4", "%gx = %c1");
        assert_eq!(guard(&valid), None);
    }

    #[test]
    fn deeply_nested_regions() {
        let depth = 20_000;
        let mut text = String::from("func.func @deep(%c: i1) {\n");
        text.push_str(&"scf.if %c {\n".repeat(depth));
        text.push_str("%u = arith.negf %v : f32\n");
        text.push_str(&"}\n".repeat(depth));
        text.push_str(
            "return\n}\nfunc.func @h() {\n  %v = arith.constant 1.0 : f32\n  return\n}\n",
        );
        let use_line = depth + 2;
        assert_eq!(
            guard(&text),
            Some((use_line, 17, "%v".into(), 2 * depth + 6))
        );
    }
}
