//! `coco-bigtest`: BigTest for df programs. See `coco_tools::bigtest`.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    std::panic::set_hook(Box::new(|_| {}));
    let output = coco_tools::guarded("coco-bigtest", || coco_tools::bigtest::run(&args));
    let _ = std::io::stdout().write_all(&output.stdout);
    let _ = std::io::stderr().write_all(&output.stderr);
    std::process::exit(output.code);
}
