//! Input text: reading files or stdin, splitting at `// -----` markers, and
//! rendering diagnostics with the source line they point at.

use std::io::Read;

use coco_dialects::diagnostics::Diag;

/// Parses and verifies `text` (named `name` in diagnostics); on failure,
/// the error and every diagnostic rendered with its source line.
pub fn load<'c>(
    context: &'c melior::Context,
    text: &str,
    name: &str,
) -> Result<melior::ir::Module<'c>, String> {
    load_shown(context, text, name, text)
}

/// [`load`], with diagnostics quoting `shown`: the file the user wrote,
/// where `text` was made from it (a PySpark job's df program).
pub fn load_shown<'c>(
    context: &'c melior::Context,
    text: &str,
    name: &str,
    shown: &str,
) -> Result<melior::ir::Module<'c>, String> {
    let collector = coco_dialects::diagnostics::DiagnosticCollector::attach(context);
    coco_dialects::load_module(context, text, name).map_err(|e| {
        let diagnostics: String = collector
            .take()
            .iter()
            .map(|d| render(d, name, shown))
            .collect();
        format!("{e}\n{diagnostics}")
    })
}

/// A program as the tools read it: df MLIR, or a PySpark job (a `.py`
/// file) through the front end (`coco_pyspark`).
pub struct ProgramSource {
    /// The df module.
    pub mlir: String,
    /// The file's own text, which diagnostics quote.
    pub shown: String,
    /// What the front end read, for a PySpark job.
    pub imported: Option<coco_pyspark::Imported>,
}

/// Whether `path` names a PySpark job rather than df MLIR.
pub fn is_pyspark(path: &str) -> bool {
    path.ends_with(".py")
}

/// Reads the program at `path`: a `.py` file is a PySpark job, read with
/// `python` (`coco_pyspark::Options`); anything else is df MLIR.
pub fn read_program(path: &str, python: &coco_pyspark::Options) -> Result<ProgramSource, String> {
    if !is_pyspark(path) {
        let text = read_input(path, None)?;
        return Ok(ProgramSource {
            mlir: text.clone(),
            shown: text,
            imported: None,
        });
    }
    // Bytes: CPython decodes the file (a BOM, a `# coding:` declaration).
    let bytes = read_input_bytes(path, None)?;
    match coco_pyspark::import_bytes(path, &bytes, python) {
        Ok(imported) => Ok(ProgramSource {
            mlir: imported.mlir.clone(),
            shown: imported.text.clone(),
            imported: Some(imported),
        }),
        Err(e) => {
            let text =
                String::from_utf8_lossy(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes));
            let mut message = e.to_string();
            if let Some(loc) = e.loc() {
                message.push_str(&quote(&text, loc.line, loc.column));
            }
            Err(message)
        }
    }
}

/// Line `line` of `source` with a caret under column `column`, as
/// diagnostics show it (empty when there is no such line).
fn quote(source: &str, line: usize, column: usize) -> String {
    let Some(text) = source.lines().nth(line.saturating_sub(1)) else {
        return String::new();
    };
    format!("\n{}", caret_lines(text, column.saturating_sub(1)))
}

/// A quoted source line (cut to a window around the caret) and the caret
/// line under it, without a final newline.
fn caret_lines(text: &str, column: usize) -> String {
    let (shown, caret) = window(text, column);
    let pad: String = shown
        .chars()
        .take(caret)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!("{shown}\n{pad}^")
}

/// The input size limit when `COCO_MAX_INPUT_BYTES` is not set (256 MiB).
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 << 20;

/// The environment variable that sets the input size limit, in bytes.
pub const MAX_INPUT_BYTES_VAR: &str = "COCO_MAX_INPUT_BYTES";

/// What every tool's `--help` says about the limits on its input.
pub fn input_limits_help() -> String {
    use coco_dialects::nesting::{DEFAULT_MAX_NESTING, MAX_NESTING_VAR};
    format!(
        "Input limits: an input file is a regular file, a pipe or `-` (standard input), of at most \
         {} MiB (set {MAX_INPUT_BYTES_VAR}, in bytes, to change it); its text nests brackets and \
         regions at most {DEFAULT_MAX_NESTING} levels deep (set {MAX_NESTING_VAR} to change it).",
        DEFAULT_MAX_INPUT_BYTES >> 20
    )
}

/// The input size limit: `COCO_MAX_INPUT_BYTES` if set, otherwise
/// [`DEFAULT_MAX_INPUT_BYTES`].
pub fn max_input_bytes() -> Result<u64, String> {
    match std::env::var(MAX_INPUT_BYTES_VAR) {
        Err(_) => Ok(DEFAULT_MAX_INPUT_BYTES),
        Ok(text) => text.trim().parse::<u64>().map_err(|_| {
            format!("{MAX_INPUT_BYTES_VAR} must be a number of bytes, found '{text}'")
        }),
    }
}

/// Reads `path` (`-` is stdin; `stdin` overrides the real one in tests).
/// Only regular files and pipes are read (a device such as `/dev/zero`
/// never ends), and at most [`max_input_bytes`].
pub fn read_input(path: &str, stdin: Option<&[u8]>) -> Result<String, String> {
    let bytes = read_input_bytes(path, stdin)?;
    String::from_utf8(bytes).map_err(|_| format!("input file '{path}' is not valid UTF-8"))
}

/// [`read_input`]'s bytes, before any decoding.
pub fn read_input_bytes(path: &str, stdin: Option<&[u8]>) -> Result<Vec<u8>, String> {
    let limit = max_input_bytes()?;
    let too_large = |what: &str| {
        format!(
            "{what} is larger than {limit} bytes (the limit, set by the environment variable \
             {MAX_INPUT_BYTES_VAR})"
        )
    };
    let bytes = if path == "-" {
        match stdin {
            Some(bytes) if bytes.len() as u64 > limit => return Err(too_large("standard input")),
            Some(bytes) => bytes.to_vec(),
            None => read_limited(std::io::stdin().lock(), limit)
                .map_err(|e| {
                    format!(
                        "could not read standard input: {}",
                        crate::output::reason(&e)
                    )
                })?
                .ok_or_else(|| too_large("standard input"))?,
        }
    } else {
        let cannot_open = |e: std::io::Error| {
            let reason = match e.kind() {
                std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
                std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
                _ => crate::output::reason(&e),
            };
            format!("could not open input file '{path}': {reason}")
        };
        let file = std::fs::File::open(path).map_err(cannot_open)?;
        let kind = file.metadata().map_err(cannot_open)?.file_type();
        if kind.is_dir() {
            return Err(format!("input file '{path}' is a directory"));
        }
        if !kind.is_file() && !std::os::unix::fs::FileTypeExt::is_fifo(&kind) {
            return Err(format!(
                "input file '{path}' is not a regular file or a pipe"
            ));
        }
        read_limited(file, limit)
            .map_err(|e| {
                format!(
                    "could not read input file '{path}': {}",
                    crate::output::reason(&e)
                )
            })?
            .ok_or_else(|| too_large(&format!("input file '{path}'")))?
    };
    Ok(bytes)
}

/// All of `reader`, or `None` when it holds more than `limit` bytes.
fn read_limited(reader: impl Read, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut buffer = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut buffer)?;
    Ok((buffer.len() as u64 <= limit).then_some(buffer))
}

/// One piece of a split input: its text padded with newlines so that line
/// numbers match the whole file, and the 1-based line where it starts.
pub struct Chunk {
    pub text: String,
    pub first_line: usize,
    pub last_line: usize,
}

/// Splits at lines starting with `marker` (mlir-opt's `--split-input-file`).
pub fn split(text: &str, marker: Option<&str>) -> Vec<Chunk> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut push = |start: usize, end: usize| {
        let mut chunk = "\n".repeat(start);
        for line in &lines[start..end] {
            chunk.push_str(line);
        }
        chunks.push(Chunk {
            text: chunk,
            first_line: start + 1,
            last_line: end,
        });
    };
    if let Some(marker) = marker {
        for (i, line) in lines.iter().enumerate() {
            if line.trim_start().starts_with(marker) {
                push(start, i);
                start = i + 1;
            }
        }
    }
    push(start, lines.len());
    chunks
}

/// `file:line:col: error: message`, then the source line and a caret when
/// the diagnostic points into `source`, as MLIR's SourceMgr handler prints.
pub fn render(diag: &Diag, filename: &str, source: &str) -> String {
    let mut out = render_one(diag, filename, source);
    for note in &diag.notes {
        out.push_str(&render_one(note, filename, source));
    }
    out
}

/// The characters of a quoted source line either side of the caret.
const QUOTE_RADIUS: usize = 80;

/// `text` as a diagnostic quotes it, and the caret's column (0-based) in
/// it: a line longer than the window (a generated job's 400 KB chain)
/// shows only [`QUOTE_RADIUS`] characters either side of `column`, marked
/// `...` where it was cut.
fn window(text: &str, column: usize) -> (String, usize) {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= 2 * QUOTE_RADIUS {
        return (text.to_string(), column);
    }
    let column = column.min(chars.len());
    let start = column.saturating_sub(QUOTE_RADIUS);
    let end = (column + QUOTE_RADIUS).min(chars.len());
    let mut shown = String::new();
    let mut caret = column - start;
    if start > 0 {
        shown.push_str("...");
        caret += 3;
    }
    shown.extend(&chars[start..end]);
    if end < chars.len() {
        shown.push_str("...");
    }
    (shown, caret)
}

fn render_one(diag: &Diag, filename: &str, source: &str) -> String {
    let mut out = String::new();
    let header = Diag {
        notes: Vec::new(),
        ..diag.clone()
    };
    out.push_str(&header.to_string());
    out.push('\n');
    if let Some((file, line, col)) = &diag.position {
        if file == filename && *line > 0 {
            if let Some(text) = source.lines().nth(*line as usize - 1) {
                out.push_str(&caret_lines(text, (*col as usize).saturating_sub(1)));
                out.push('\n');
            }
        }
    }
    out
}
