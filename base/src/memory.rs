//! How much memory one process of coco may ask for: `COCO_MAX_MEMORY_BYTES`,
//! by default this machine's physical memory, and never more than the
//! process can actually get: what is left of its address-space limit
//! (`ulimit -v`, as batch schedulers set it) and of its cgroup's
//! `memory.max` (as containers set it). The executor checks a rank's
//! buffers against it and the reference interpreter its program's values,
//! before either allocates them: a program that asks for 800 GB, or 3 GB
//! under a 2 GB `ulimit -v`, is refused by name, before the allocator
//! aborts or the kernel's OOM killer decides.

/// The variable that sets the limit, in bytes.
pub const MEMORY_LIMIT_ENV: &str = "COCO_MAX_MEMORY_BYTES";

/// The limit, and where it came from (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    pub bytes: u64,
    pub source: String,
}

impl MemoryLimit {
    /// From `$COCO_MAX_MEMORY_BYTES`, else this machine's memory, else none;
    /// then lowered to what this process's address-space and cgroup limits
    /// leave.
    pub fn from_env() -> Result<MemoryLimit, String> {
        let limit = MemoryLimit::parse(std::env::var(MEMORY_LIMIT_ENV).ok().as_deref())?;
        Ok(limit
            .at_most(
                address_space_left(),
                "what `ulimit -v` (RLIMIT_AS) leaves this process",
            )
            .at_most(cgroup_memory_left(), "what the cgroup's memory.max leaves"))
    }

    /// This limit, or `bytes` (with `why`) where that is lower.
    pub fn at_most(self, bytes: Option<u64>, why: &str) -> MemoryLimit {
        match bytes {
            Some(bytes) if bytes < self.bytes => MemoryLimit {
                bytes,
                source: format!("{why}; {MEMORY_LIMIT_ENV} cannot raise it"),
            },
            _ => self,
        }
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

/// A tenth of what a limit leaves is kept back for what the process maps
/// besides the values it is checked for (libraries, thread stacks, malloc's
/// arenas, temporaries).
fn usable(left: u64) -> u64 {
    left - left / 10
}

/// The soft `RLIMIT_AS` less the address space already mapped (`VmSize`).
fn address_space_left() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    // "Max address space   <soft>   <hard>   bytes"
    let soft: u64 = line
        .trim_start_matches("Max address space")
        .split_whitespace()
        .next()?
        .parse()
        .ok()?; // "unlimited" is no limit
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mapped = kib_field(&status, "VmSize:").unwrap_or(0);
    Some(usable(soft.saturating_sub(mapped)))
}

/// The cgroup (v2) `memory.max` less `memory.current`, where one is set.
fn cgroup_memory_left() -> Option<u64> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    // v2: the one line "0::/path".
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |name: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok() // "max" is no limit
    };
    let max = read("memory.max")?;
    let current = read("memory.current").unwrap_or(0);
    Some(usable(max.saturating_sub(current)))
}

/// A `Name:   N kB` field of a /proc file, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line
        .trim_start_matches(name)
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// `MemTotal` of `/proc/meminfo`.
fn physical_memory() -> Option<u64> {
    kib_field(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemTotal:")
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

    #[test]
    fn a_lower_limit_of_the_process_wins_and_says_so() {
        let limit = MemoryLimit::parse(Some("4096")).unwrap();
        let lowered = limit.clone().at_most(Some(1000), "what `ulimit -v` leaves");
        assert_eq!(lowered.bytes, 1000);
        assert!(lowered.source.contains("ulimit -v"), "{lowered:?}");
        assert_eq!(limit.clone().at_most(Some(5000), "x"), limit);
        assert_eq!(limit.clone().at_most(None, "x"), limit);
    }

    #[test]
    fn proc_fields_are_read_in_bytes() {
        let status = "Name:\tcoco\nVmSize:\t  2048 kB\n";
        assert_eq!(kib_field(status, "VmSize:"), Some(2 << 20));
        assert_eq!(kib_field(status, "VmRSS:"), None);
    }
}
