//! `--verify-diagnostics`: mlir-opt's `expected-error {{...}}` comments.
//!
//! Supported forms, as upstream: `expected-error`, `expected-warning`,
//! `expected-remark`, `expected-note`, each optionally with `@+N`, `@-N`,
//! `@above` or `@below`, then `{{substring}}`. Every error, warning and remark
//! must be expected and every expectation met; notes only need to match when
//! they are expected. Regex forms (`expected-error-re`) are not supported and
//! are reported as such rather than ignored.

use coco_dialects::diagnostics::{Diag, Severity};

#[derive(Debug)]
pub struct Expectation {
    pub severity: Severity,
    /// Line the diagnostic must be on.
    pub line: u32,
    /// Line of the comment itself.
    pub comment_line: u32,
    pub column: u32,
    pub message: String,
    matched: bool,
}

/// Collects the expectations in lines `first..=last` (1-based) of `source`.
/// Malformed expectations are returned as error messages.
pub fn parse(
    source: &str,
    first: usize,
    last: usize,
    filename: &str,
) -> (Vec<Expectation>, Vec<String>) {
    let mut expectations = Vec::new();
    let mut problems = Vec::new();
    let lines: Vec<&str> = source.lines().collect();
    for number in first..=last.min(lines.len()) {
        let text = lines[number - 1];
        let mut rest = text;
        let mut offset = 0;
        while let Some(found) = rest.find("expected-") {
            let start = offset + found;
            let after = &text[start + "expected-".len()..];
            offset = start + 1;
            rest = &text[offset..];
            let Some((kind, tail)) = split_kind(after) else {
                continue;
            };
            let column = start as u32 + 1;
            let at = |message: String| format!("{filename}:{number}:{column}: error: {message}");
            if tail.starts_with("-re") {
                problems.push(at(format!(
                    "expected-{kind}-re is not supported by coco-opt; use a plain substring"
                )));
                continue;
            }
            let (target, tail) = match parse_target(tail, number as u32, &lines) {
                Ok(parsed) => parsed,
                Err(message) => {
                    problems.push(at(message));
                    continue;
                }
            };
            let tail = tail.trim_start();
            let Some(body) = tail.strip_prefix("{{") else {
                problems.push(at(format!("expected '{{{{' after expected-{kind}")));
                continue;
            };
            let Some(end) = body.find("}}") else {
                problems.push(at("expected '}}' to close the expected message".into()));
                continue;
            };
            expectations.push(Expectation {
                severity: severity(kind),
                line: target,
                comment_line: number as u32,
                column,
                message: body[..end].to_string(),
                matched: false,
            });
        }
    }
    (expectations, problems)
}

fn split_kind(after: &str) -> Option<(&'static str, &str)> {
    for kind in ["error", "warning", "remark", "note"] {
        if let Some(tail) = after.strip_prefix(kind) {
            return Some((kind, tail));
        }
    }
    None
}

fn severity(kind: &str) -> Severity {
    match kind {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        "remark" => Severity::Remark,
        _ => Severity::Note,
    }
}

/// `@+N`, `@-N`, `@above`, `@below` or nothing (the comment's own line).
fn parse_target<'t>(tail: &'t str, line: u32, lines: &[&str]) -> Result<(u32, &'t str), String> {
    let Some(spec) = tail.strip_prefix('@') else {
        return Ok((line, tail));
    };
    let is_code = |l: &&str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with("//")
    };
    if let Some(rest) = spec.strip_prefix("above") {
        let target = (1..line).rev().find(|&l| is_code(&lines[l as usize - 1]));
        return target
            .map(|t| (t, rest))
            .ok_or_else(|| "no code line above @above".to_string());
    }
    if let Some(rest) = spec.strip_prefix("below") {
        let target = (line + 1..=lines.len() as u32).find(|&l| is_code(&lines[l as usize - 1]));
        return target
            .map(|t| (t, rest))
            .ok_or_else(|| "no code line below @below".to_string());
    }
    let sign = spec.chars().next();
    let digits: String = spec
        .chars()
        .skip(1)
        .take_while(char::is_ascii_digit)
        .collect();
    let rest = &spec[1 + digits.len()..];
    let delta: u32 = digits
        .parse()
        .map_err(|_| format!("bad line offset '@{spec}'"))?;
    match sign {
        Some('+') => Ok((line + delta, rest)),
        Some('-') if delta < line => Ok((line - delta, rest)),
        _ => Err("expected @+N, @-N, @above or @below".into()),
    }
}

/// Matches `diagnostics` against `expectations`; returns failure messages.
pub fn check(
    expectations: &mut [Expectation],
    diagnostics: &[Diag],
    filename: &str,
) -> Vec<String> {
    let mut failures = Vec::new();
    let mut all = Vec::new();
    for diag in diagnostics {
        all.push((diag, false));
        for note in &diag.notes {
            all.push((note, true));
        }
    }
    for (diag, is_note) in all {
        let position = diag
            .position
            .as_ref()
            .filter(|(file, _, _)| file == filename);
        let found = position.and_then(|(_, line, _)| {
            expectations.iter_mut().find(|e| {
                !e.matched
                    && e.severity == diag.severity
                    && e.line == *line
                    && diag.message.contains(&e.message)
            })
        });
        match found {
            Some(expectation) => expectation.matched = true,
            None if is_note => {}
            None => {
                let place = match &diag.position {
                    Some((file, line, col)) => format!("{file}:{line}:{col}"),
                    None => format!("{filename}:<unknown location>"),
                };
                failures.push(format!(
                    "{place}: error: unexpected {}: {}",
                    diag.severity.as_str(),
                    diag.message
                ));
            }
        }
    }
    for e in expectations.iter().filter(|e| !e.matched) {
        failures.push(format!(
            "{filename}:{}:{}: error: expected {} \"{}\" was not produced (expected on line {})",
            e.comment_line,
            e.column,
            e.severity.as_str(),
            e.message,
            e.line
        ));
    }
    failures
}
