//! Indented Python source, line by line.

#[derive(Default)]
pub struct Writer {
    text: String,
    depth: usize,
}

impl Writer {
    pub fn line(&mut self, line: impl AsRef<str>) {
        let line = line.as_ref();
        if !line.is_empty() {
            for _ in 0..self.depth {
                self.text.push_str("    ");
            }
            self.text.push_str(line);
        }
        self.text.push('\n');
    }

    pub fn indent(&mut self) {
        self.depth += 1;
    }

    pub fn dedent(&mut self) {
        self.depth -= 1;
    }

    pub fn raw(&mut self, text: &str) {
        self.text.push_str(text);
    }

    pub fn finish(self) -> String {
        self.text
    }
}
