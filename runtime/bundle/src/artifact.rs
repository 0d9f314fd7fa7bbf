//! The files a plan loads besides itself (`native`: `kernels.so`; `ptx`:
//! `kernels.ptx`), pinned by the size and SHA-256 the plan records of each
//! when the bundle is written ([`Plan::record_digests`]). The executor
//! reads a file through [`read_verified`] before it loads it, so that the
//! kernels of another build (a `kernels.so` copied from another bundle, or
//! a `plan.toml` linked from one), whose buffers may be larger than the
//! plan's, are refused instead of run out of bounds; and a FIFO, a folder
//! or a link to a device in the file's place is named as such.

use std::{
    fs::File,
    io::{self, Read},
    path::Path,
};

use serde::{Deserialize, Serialize};

use crate::{error::Error, error::Result, Plan, PLAN_FILE};

/// The size and SHA-256 of a file:
/// `{ bytes = 16384, sha256 = "9f86d0...15b0f00a08" }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Digest {
    pub bytes: u64,
    /// 64 lowercase hexadecimal digits.
    pub sha256: String,
}

impl Digest {
    /// The digest of the regular file at `path`.
    pub fn of_file(path: &Path) -> io::Result<Digest> {
        let (file, _) = coco_base::file::open_regular(path).map_err(|e| match e {
            coco_base::file::OpenError::Io(e) => e,
            other => io::Error::other(other.to_string()),
        })?;
        let (bytes, sha256) = digest(file, u64::MAX)?;
        Ok(Digest { bytes, sha256 })
    }

    /// Why the digest cannot be one a writer recorded, if it cannot.
    pub(crate) fn check(&self) -> std::result::Result<(), String> {
        if self.sha256.len() == 64
            && self
                .sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            Ok(())
        } else {
            Err(format!(
                "sha256 '{}' is not 64 lowercase hexadecimal digits",
                self.sha256
            ))
        }
    }
}

/// The length and SHA-256 of what `reader` holds, reading at most `limit`
/// bytes past which it stops (a file larger than recorded is not read to
/// its end).
fn digest(reader: impl Read, limit: u64) -> io::Result<(u64, String)> {
    let mut hasher = coco_base::sha256::Sha256::new();
    let mut reader = reader.take(limit);
    let mut buffer = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buffer[..n]);
        total += n as u64;
    }
    Ok((total, hasher.hex()))
}

impl Plan {
    /// Records the digest of every file the plan loads (`native`,
    /// `ptx.file`) as it is in `bundle` now: call it once they are written.
    pub fn record_digests(&mut self, bundle: &Path) -> io::Result<()> {
        if let Some(native) = &self.native {
            self.native_digest = Some(Digest::of_file(&bundle.join(native))?);
        }
        if let Some(ptx) = &mut self.ptx {
            ptx.digest = Some(Digest::of_file(&bundle.join(&ptx.file))?);
        }
        Ok(())
    }
}

/// The plan's file `name` of `bundle` (`what` says what it is, for
/// messages: `the bundle's native kernels`), opened and read whole, after
/// checking that it is a regular file of the size and SHA-256 `digest`
/// records (`key`: the plan's key for it). At most the recorded size plus
/// one byte is read. The file stays open, so that the caller can load the
/// very file it checked (`/proc/self/fd/N`).
pub fn read_verified(
    bundle: &Path,
    name: &str,
    digest: Option<&Digest>,
    key: &str,
    what: &str,
) -> Result<(File, Vec<u8>)> {
    let path = bundle.join(name);
    let plan = bundle.join(PLAN_FILE);
    let fail = |message: String| Error::Plan {
        path: path.display().to_string(),
        message,
    };
    let digest = digest.ok_or_else(|| Error::Plan {
        path: plan.display().to_string(),
        message: format!(
            "records no digest of {name} (`{key}`): the bundle was written by an older \
             coco-translate; rebuild it with coco-translate --emit=bundle"
        ),
    })?;
    let (file, metadata) = coco_base::file::open_regular(&path).map_err(|e| match e {
        coco_base::file::OpenError::Io(e) if e.kind() == io::ErrorKind::NotFound => {
            fail(format!("no such file ({what})"))
        }
        other => fail(format!("{other} ({what})")),
    })?;
    let mismatch = |found: String| {
        fail(format!(
            "{found}, but {} records {} bytes with SHA-256 {} for it: it is not the file the \
             plan was written with (another build's?); rebuild the bundle with \
             coco-translate --emit=bundle",
            plan.display(),
            digest.bytes,
            digest.sha256
        ))
    };
    if metadata.len() != digest.bytes {
        return Err(mismatch(format!("has {} bytes", metadata.len())));
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(digest.bytes.min(usize::MAX as u64) as usize)
        .map_err(|_| fail(format!("cannot allocate {} bytes to read it", digest.bytes)))?;
    (&file)
        .take(digest.bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| fail(format!("cannot read: {e}")))?;
    let (length, sha256) = digest_of(&bytes);
    if length != digest.bytes {
        return Err(mismatch(format!(
            "has {length} bytes (it changed while read)"
        )));
    }
    if sha256 != digest.sha256 {
        return Err(mismatch(format!("has SHA-256 {sha256}")));
    }
    Ok((file, bytes))
}

fn digest_of(bytes: &[u8]) -> (u64, String) {
    (bytes.len() as u64, coco_base::sha256::hex(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("coco-artifact-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn verify(dir: &Path, digest: &Digest) -> std::result::Result<Vec<u8>, String> {
        read_verified(
            dir,
            "kernels.so",
            Some(digest),
            "native_digest",
            "the bundle's native kernels",
        )
        .map(|(_, bytes)| bytes)
        .map_err(|e| e.to_string())
    }

    #[test]
    fn the_recorded_file_reads_and_any_other_is_refused() {
        let dir = scratch("verify");
        let so = dir.join("kernels.so");
        std::fs::write(&so, b"the kernels of this build").unwrap();
        let digest = Digest::of_file(&so).unwrap();
        assert_eq!(digest.bytes, 25);
        digest.check().unwrap();
        assert_eq!(verify(&dir, &digest).unwrap(), b"the kernels of this build");

        // Another build's kernels: of another size, or of the same size.
        std::fs::write(&so, b"the kernels of a larger build").unwrap();
        let error = verify(&dir, &digest).unwrap_err();
        assert!(error.contains("kernels.so: has 29 bytes, but "), "{error}");
        assert!(
            error.contains("plan.toml records 25 bytes with SHA-256 "),
            "{error}"
        );
        assert!(
            error.contains("it is not the file the plan was written with"),
            "{error}"
        );
        std::fs::write(&so, b"the kernels of that build").unwrap();
        let error = verify(&dir, &digest).unwrap_err();
        assert!(error.contains("kernels.so: has SHA-256 "), "{error}");

        // No digest at all: an older bundle.
        let error = read_verified(&dir, "kernels.so", None, "native_digest", "x")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("plan.toml: records no digest of kernels.so (`native_digest`)"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_stands_in_the_files_place_is_named() {
        let dir = scratch("kinds");
        let digest = Digest {
            bytes: 4,
            sha256: "0".repeat(64),
        };
        let error = verify(&dir, &digest).unwrap_err();
        assert!(
            error.ends_with("kernels.so: no such file (the bundle's native kernels)"),
            "{error}"
        );
        std::os::unix::fs::symlink("/dev/zero", dir.join("kernels.so")).unwrap();
        let error = verify(&dir, &digest).unwrap_err();
        assert!(
            error.ends_with(
                "kernels.so: a device is not a regular file (the bundle's native kernels)"
            ),
            "{error}"
        );
        std::fs::remove_file(dir.join("kernels.so")).unwrap();
        std::fs::create_dir(dir.join("kernels.so")).unwrap();
        let error = verify(&dir, &digest).unwrap_err();
        assert!(
            error.contains("a directory is not a regular file"),
            "{error}"
        );
        std::fs::remove_dir(dir.join("kernels.so")).unwrap();
        if std::process::Command::new("mkfifo")
            .arg(dir.join("kernels.so"))
            .status()
            .is_ok_and(|s| s.success())
        {
            let error = verify(&dir, &digest).unwrap_err();
            assert!(error.contains("a FIFO is not a regular file"), "{error}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn digests_are_recorded_for_the_files_the_plan_loads() {
        let dir = scratch("record");
        std::fs::write(dir.join("kernels.so"), b"so").unwrap();
        std::fs::write(dir.join("kernels.ptx"), b"ptx").unwrap();
        let mut plan = Plan::new("p.mlir", 1);
        plan.native = Some("kernels.so".into());
        plan.ptx = Some(crate::plan::PtxTarget {
            file: "kernels.ptx".into(),
            chip: "sm_90".into(),
            features: "+ptx80".into(),
            libdevice: false,
            digest: None,
        });
        plan.stages.push(crate::Stage {
            function: "f".into(),
            first_rank: 0,
            size: 1,
            buffers: Vec::new(),
            steps: Vec::new(),
            mesh: Vec::new(),
        });
        plan.record_digests(&dir).unwrap();
        assert_eq!(plan.native_digest.as_ref().unwrap().bytes, 2);
        assert_eq!(
            plan.ptx.as_ref().unwrap().digest.as_ref().unwrap().sha256,
            coco_base::sha256::hex(b"ptx")
        );
        let text = plan.to_text();
        assert!(
            text.contains("native_digest = { bytes = 2, sha256 = \""),
            "{text}"
        );
        let parsed = Plan::parse(&text, Path::new("plan.toml")).unwrap();
        assert_eq!(parsed, plan);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
