//! A structural check of `kernels.so` before `dlopen`: the dynamic loader
//! maps the file's segments by the offsets in its headers, and touching a
//! page past the end of a truncated file is a SIGBUS in the rank, not an
//! error. So every header table and every loaded segment must lie inside
//! the file.

/// `Err` says what does not fit; `Ok` when the file is a complete 64-bit
/// little-endian ELF as far as the loader will read it.
pub fn check_complete(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 64 || &bytes[..4] != b"\x7fELF" {
        return Err("not an ELF shared object".into());
    }
    if bytes[4] != 2 || bytes[5] != 1 {
        return Err("not a 64-bit little-endian ELF file".into());
    }
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u64;
    let u64_at = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
    };
    let len = bytes.len() as u64;
    let table_fits = |offset: u64, entry: u64, count: u64| {
        entry
            .checked_mul(count)
            .and_then(|size| offset.checked_add(size))
            .is_some_and(|end| end <= len)
    };
    let (phoff, shoff) = (
        u64_at(0x20).unwrap_or(u64::MAX),
        u64_at(0x28).unwrap_or(u64::MAX),
    );
    let (phentsize, phnum) = (u16_at(0x36), u16_at(0x38));
    let (shentsize, shnum) = (u16_at(0x3a), u16_at(0x3c));
    if phentsize < 56 || !table_fits(phoff, phentsize, phnum) {
        return Err(format!(
            "cut short: its program headers end past its {len} bytes"
        ));
    }
    if shnum > 0 && !table_fits(shoff, shentsize, shnum) {
        return Err(format!(
            "cut short: its section headers end past its {len} bytes"
        ));
    }
    for i in 0..phnum {
        let header = (phoff + i * phentsize) as usize;
        let offset = u64_at(header + 8).unwrap_or(u64::MAX);
        let file_size = u64_at(header + 32).unwrap_or(u64::MAX);
        if offset.checked_add(file_size).is_none_or(|end| end > len) {
            return Err(format!(
                "cut short: segment {i} ends at byte {}, past its {len} bytes",
                offset.saturating_add(file_size)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_complete;

    /// This test binary is itself a complete ELF file.
    fn me() -> Vec<u8> {
        std::fs::read(std::env::current_exe().unwrap()).unwrap()
    }

    #[test]
    fn a_complete_file_passes() {
        check_complete(&me()).unwrap();
    }

    #[test]
    fn every_cut_is_found() {
        let bytes = me();
        for cut in [0, 3, 63, 64, 200, bytes.len() / 2, bytes.len() - 1] {
            assert!(check_complete(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}
