//! The autotuner never chooses a schedule that fails at the world size it
//! planned for: every example is planned for 1, 2, 3, 4 and 8 ranks and the
//! choice runs there (on the reference backend, which checks every sliced
//! dimension and stage split as the compiled ones do). Where no schedule
//! can run, the autotuner must say so, naming the reason.

use crate::{coco_opt, run_reference};

pub const PLANNED: &[usize] = &[1, 2, 3, 4, 8];

pub fn check(path: &str) -> Result<(), String> {
    let dir = std::env::temp_dir()
        .join("coco-filetests")
        .join("world-sizes");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for &ranks in PLANNED {
        let planned = format!("--autotune-ranks={ranks}");
        let tuned = coco_opt(&[path, "--coco-autotune=cpu-host", &planned], None);
        if tuned.code != 0 {
            let stderr = String::from_utf8_lossy(&tuned.stderr);
            if stderr.contains(&format!(
                "no schedule of this program runs on {ranks} ranks ("
            )) {
                continue;
            }
            return Err(format!("{ranks} ranks: coco-opt failed:\n{stderr}"));
        }
        let file = dir.join(format!("{}-{ranks}.mlir", path.replace(['/', '.'], "_")));
        std::fs::write(&file, &tuned.stdout).map_err(|e| e.to_string())?;
        let run = run_reference(&file.to_string_lossy(), ranks, &[]);
        if run.code != 0 {
            return Err(format!(
                "planned for {ranks} ranks, the chosen schedule fails there:\n{}",
                String::from_utf8_lossy(&run.stderr)
            ));
        }
    }
    Ok(())
}
