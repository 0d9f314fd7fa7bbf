//! `coco-translate`: compile a coco program. See `coco_tools::translate`.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    std::panic::set_hook(Box::new(|_| {}));
    let output = coco_tools::guarded("coco-translate", || coco_tools::translate::run(&args, None));
    let _ = std::io::stdout().write_all(&output.stdout);
    let _ = std::io::stderr().write_all(&output.stderr);
    std::process::exit(output.code);
}
