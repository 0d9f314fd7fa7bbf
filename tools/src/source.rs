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
    let collector = coco_dialects::diagnostics::DiagnosticCollector::attach(context);
    coco_dialects::load_module(context, text, name).map_err(|e| {
        let diagnostics: String = collector
            .take()
            .iter()
            .map(|d| render(d, name, text))
            .collect();
        format!("{e}\n{diagnostics}")
    })
}

/// Reads `path` (`-` is stdin; `stdin` overrides the real one in tests).
pub fn read_input(path: &str, stdin: Option<&[u8]>) -> Result<String, String> {
    let bytes = if path == "-" {
        match stdin {
            Some(bytes) => bytes.to_vec(),
            None => {
                let mut buffer = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut buffer)
                    .map_err(|e| format!("could not read standard input: {e}"))?;
                buffer
            }
        }
    } else {
        std::fs::read(path).map_err(|e| {
            let reason = match e.kind() {
                std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
                std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
                _ => e.to_string(),
            };
            format!("could not open input file '{path}': {reason}")
        })?
    };
    String::from_utf8(bytes).map_err(|_| format!("input file '{path}' is not valid UTF-8"))
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
                out.push_str(text);
                out.push('\n');
                let pad: String = text
                    .chars()
                    .take((*col as usize).saturating_sub(1))
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                out.push_str(&pad);
                out.push_str("^\n");
            }
        }
    }
    out
}
