//! Deterministic text mutations: `mutate` (one small edit, as a typo or a
//! bad merge makes) and `hostile` (edits that aim at limits: extreme numbers,
//! swapped types, huge shapes, deep nesting).

/// xorshift64*: deterministic, dependency-free.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Tokens that make mutations reach the verifiers, not just the lexer.
pub const SPLICES: &[&str] = &[
    "#coco.local",
    "#coco.replicated",
    "#coco.sliced<0>",
    "#coco.sliced<1>",
    "#coco.sliced<7>",
    "sum",
    "avg",
    "max",
    "f16",
    "f32",
    "i64",
    "!df.str",
    "!df.list<i64>",
    "tuple<i64, f64>",
    "8x16",
    "1024",
    "0",
    "-1",
    "@stage0",
    "@missing",
    ")",
    "(",
    "{",
    "}",
    "%0",
    ",",
    ":",
    "->",
    "coco.all_reduce",
    "coco.matmul",
    "df.map",
    "\"",
    "inner",
    "left_outer",
    "bigtest.jdu_path",
];

/// One mutation of `text`.
pub fn mutate(text: &str, rng: &mut Rng) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return String::new();
    }
    let at = rng.below(chars.len());
    let len = 1 + rng.below(12.min(chars.len() - at));
    let mut out: Vec<char> = Vec::with_capacity(chars.len() + 16);
    match rng.below(6) {
        0 => {
            out.extend(&chars[..at]);
            out.extend(&chars[at + len..]);
        }
        1 => {
            out.extend(&chars[..at]);
            out.extend(SPLICES[rng.below(SPLICES.len())].chars());
            out.extend(&chars[at..]);
        }
        2 => {
            out.extend(&chars[..at]);
            out.extend(SPLICES[rng.below(SPLICES.len())].chars());
            out.extend(&chars[at + len..]);
        }
        3 => {
            let lines: Vec<&str> = text.lines().collect();
            let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
            let mut lines = lines;
            lines.swap(a, b);
            return lines.join("\n");
        }
        4 => {
            let lines: Vec<&str> = text.lines().collect();
            let a = rng.below(lines.len());
            let mut lines = lines;
            lines.remove(a);
            return lines.join("\n");
        }
        _ => out.extend(&chars[..at]),
    }
    out.into_iter().collect()
}

/// Numbers that sit on a limit: zero, negatives, the edges of i32, i64 and
/// u64, a value past 2^53, and sizes no machine holds.
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1",
    "2147483647",
    "-2147483648",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999",
    "1e308",
    "nan",
];

/// Element and tensor types to swap in.
const TYPES: &[&str] = &[
    "i1",
    "i8",
    "i32",
    "i64",
    "f16",
    "bf16",
    "f32",
    "f64",
    "index",
    "tensor<0xf32>",
    "tensor<4x0xf32>",
    "tensor<?xf32>",
    "tensor<99999999999xf32>",
    "!df.str",
];

/// One edit aimed at a limit: a number replaced by an extreme, a type
/// swapped, a shape made huge or empty, or an op wrapped in deep nesting.
pub fn hostile(text: &str, rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => replace_nth_match(text, rng, |c| c.is_ascii_digit(), EXTREMES),
        1 => {
            let words = ["i64", "f32", "i32", "f16", "bf16", "f64"];
            let word = words[rng.below(words.len())];
            replace_word(text, rng, word, TYPES)
        }
        2 => {
            let sizes = ["0", "1", "3", "99999999999", "4611686018427387904", "7"];
            replace_nth_match(text, rng, |c| c.is_ascii_digit(), &sizes)
        }
        _ => {
            let depth = [50, 500, 5000][rng.below(3)];
            let mut out = String::with_capacity(text.len() + depth * 4);
            let cut = text.len() / 2;
            let cut = (0..=cut)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            out.push_str(&text[..cut]);
            for _ in 0..depth {
                out.push_str(["[", "{", "(", "<"][rng.below(4)]);
            }
            out.push_str(&text[cut..]);
            out
        }
    }
}

/// Replaces the digit run at a random occurrence with one of `values`.
fn replace_nth_match(
    text: &str,
    rng: &mut Rng,
    starts: fn(char) -> bool,
    values: &[&str],
) -> String {
    let runs: Vec<(usize, usize)> = digit_runs(text, starts);
    if runs.is_empty() {
        return text.to_string();
    }
    let (a, b) = runs[rng.below(runs.len())];
    format!(
        "{}{}{}",
        &text[..a],
        values[rng.below(values.len())],
        &text[b..]
    )
}

fn digit_runs(text: &str, starts: fn(char) -> bool) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (start, starts(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                runs.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((s, text.len()));
    }
    runs
}

/// Replaces a random occurrence of `word` with one of `values`.
fn replace_word(text: &str, rng: &mut Rng, word: &str, values: &[&str]) -> String {
    let hits: Vec<usize> = text.match_indices(word).map(|(i, _)| i).collect();
    if hits.is_empty() {
        return text.to_string();
    }
    let at = hits[rng.below(hits.len())];
    format!(
        "{}{}{}",
        &text[..at],
        values[rng.below(values.len())],
        &text[at + word.len()..]
    )
}
