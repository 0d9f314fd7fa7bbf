//! `coco-opt`: mlir-opt for coco. See `coco_tools::opt`.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    std::panic::set_hook(Box::new(|_| {}));
    let output = coco_tools::guarded("coco-opt", || coco_tools::opt::run(&args, None));
    let _ = std::io::stdout().write_all(&output.stdout);
    let _ = std::io::stderr().write_all(&output.stderr);
    std::process::exit(output.code);
}
