//! `coco-run`: execute a coco program. See `coco_tools::run`.

fn main() {
    coco_tools::main("coco-run", coco_tools::run::run)
}
