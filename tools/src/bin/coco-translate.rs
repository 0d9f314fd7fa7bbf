//! `coco-translate`: compile a coco program. See `coco_tools::translate`.

fn main() {
    coco_tools::main("coco-translate", |args| {
        coco_tools::translate::run(args, None)
    })
}
