//! CRC32C checksums (hardware accelerated by the `crc32c` crate) for every on-disk record.

/// CRC32C of `data`.
pub fn crc32c(data: &[u8]) -> u32 {
    crc32c::crc32c(data)
}

/// CRC32C of the concatenation of `parts`, without copying them together.
pub fn crc32c_parts(parts: &[&[u8]]) -> u32 {
    parts
        .iter()
        .fold(0u32, |crc, part| crc32c::crc32c_append(crc, part))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vector() {
        // RFC 3720 test vector: 32 bytes of zeros.
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
    }

    #[test]
    fn parts_equal_whole() {
        let whole = b"hello, strata";
        assert_eq!(crc32c_parts(&[&whole[..5], &whole[5..]]), crc32c(whole));
    }
}
