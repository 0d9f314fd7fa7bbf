//! Parsing `// RUN:` lines into pipelines of stages.

/// One command of a RUN pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// `not`: the command must fail.
    pub expect_failure: bool,
    /// `2>&1`: stderr joins stdout (`2>/dev/null` is accepted and changes nothing).
    pub merge_stderr: bool,
    /// `>/dev/null`: stdout is dropped (with `2>&1` before it, only stderr
    /// goes down the pipe, as in a shell).
    pub discard_stdout: bool,
    pub program: String,
    pub args: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunLine {
    /// 1-based line of the `RUN:`.
    pub line: usize,
    pub text: String,
    pub stages: Vec<Stage>,
}

/// All RUN lines of `source`, with `\` continuations joined, `%s` replaced
/// by `path`, `%t` by `temp` (a scratch file for this test) and `%cuda` by
/// the CUDA path ([`crate::cuda_path`]).
pub fn parse(source: &str, path: &str, temp: &str) -> Result<Vec<RunLine>, String> {
    let mut runs = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in source.lines().enumerate() {
        let Some(index) = line.find("RUN:") else {
            continue;
        };
        if !line[..index].trim_start().starts_with("//") {
            continue;
        }
        let body = line[index + 4..].trim();
        let (start, mut text) = pending.take().unwrap_or((i + 1, String::new()));
        if let Some(continued) = body.strip_suffix('\\') {
            text.push_str(continued);
            text.push(' ');
            pending = Some((start, text));
            continue;
        }
        text.push_str(body);
        let cuda = crate::cuda_path().display().to_string();
        let substituted = text
            .replace("%cuda", &cuda)
            .replace("%s", path)
            .replace("%t", temp);
        let stages =
            parse_pipeline(&substituted).map_err(|e| format!("line {start}: {e}: {text}"))?;
        runs.push(RunLine {
            line: start,
            text,
            stages,
        });
    }
    if let Some((start, _)) = pending {
        return Err(format!("line {start}: RUN line ends with a continuation"));
    }
    Ok(runs)
}

fn parse_pipeline(text: &str) -> Result<Vec<Stage>, String> {
    let words = split_words(text)?;
    let mut stages = Vec::new();
    for command in words.split(|w| w == "|") {
        let mut words: Vec<String> = command.to_vec();
        let mut stage = Stage {
            expect_failure: false,
            merge_stderr: false,
            discard_stdout: false,
            program: String::new(),
            args: Vec::new(),
        };
        if words.first().is_some_and(|w| w == "not") {
            stage.expect_failure = true;
            words.remove(0);
        }
        if let Some(position) = words.iter().position(|w| w == "2>&1") {
            stage.merge_stderr = true;
            words.remove(position);
        }
        if let Some(position) = words.iter().position(|w| w == ">/dev/null") {
            stage.discard_stdout = true;
            words.remove(position);
        }
        // stderr is never piped on, so discarding it needs no action.
        words.retain(|w| w != "2>/dev/null");
        if words.is_empty() {
            return Err("empty command in pipeline".into());
        }
        stage.program = words.remove(0);
        if !matches!(
            stage.program.as_str(),
            "coco-opt" | "coco-run" | "coco-translate" | "coco-bigtest" | "FileCheck"
        ) {
            return Err(format!(
                "unknown program '{}' (known: coco-opt, coco-run, coco-translate, coco-bigtest, FileCheck)",
                stage.program
            ));
        }
        stage.args = words;
        stages.push(stage);
    }
    Ok(stages)
}

/// Shell-like word splitting with single and double quotes; `|` is its own
/// word.
fn split_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            (None, '|') => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
                words.push("|".into());
            }
            (None, c) => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("unterminated quote".into());
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}
