//! How much memory one process of coco may ask for: `COCO_MAX_MEMORY_BYTES`,
//! by default this machine's physical memory. The executor checks a rank's
//! buffers against it and the reference interpreter its program's values,
//! before either allocates them: a program that asks for 800 GB is refused
//! by name, before the allocator aborts or the kernel's OOM killer decides.

/// The variable that sets the limit, in bytes.
pub const MEMORY_LIMIT_ENV: &str = "COCO_MAX_MEMORY_BYTES";

/// The limit, and where it came from (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    pub bytes: u64,
    pub source: String,
}

impl MemoryLimit {
    /// From `$COCO_MAX_MEMORY_BYTES`, else this machine's memory, else none.
    pub fn from_env() -> Result<MemoryLimit, String> {
        MemoryLimit::parse(std::env::var(MEMORY_LIMIT_ENV).ok().as_deref())
    }

    pub fn parse(value: Option<&str>) -> Result<MemoryLimit, String> {
        if let Some(text) = value {
            let bytes = text
                .trim()
                .parse::<u64>()
                .map_err(|_| format!("{MEMORY_LIMIT_ENV}='{text}' is not a number of bytes"))?;
            return Ok(MemoryLimit {
                bytes,
                source: format!("{MEMORY_LIMIT_ENV}={text}"),
            });
        }
        Ok(match physical_memory() {
            Some(bytes) => MemoryLimit {
                bytes,
                source: format!("this machine's memory; set {MEMORY_LIMIT_ENV} to change it"),
            },
            None => MemoryLimit {
                bytes: u64::MAX,
                source: "no limit".into(),
            },
        })
    }
}

/// `MemTotal` of `/proc/meminfo`.
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_comes_from_the_environment_or_the_machine() {
        let limit = MemoryLimit::parse(Some("4096")).unwrap();
        assert_eq!(limit.bytes, 4096);
        assert_eq!(limit.source, "COCO_MAX_MEMORY_BYTES=4096");
        let error = MemoryLimit::parse(Some("4G")).unwrap_err();
        assert_eq!(error, "COCO_MAX_MEMORY_BYTES='4G' is not a number of bytes");
        let default = MemoryLimit::parse(None).unwrap();
        assert!(default.bytes > 1 << 20, "{default:?}");
        assert!(
            default.source.contains("this machine's memory"),
            "{default:?}"
        );
    }
}
